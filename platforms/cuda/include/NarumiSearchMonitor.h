#ifndef NARUMI_SEARCH_MONITOR_H_
#define NARUMI_SEARCH_MONITOR_H_

#include "NarumiNonbondedTypes.h"
#include <string>

namespace OpenMMNarumi {

/**
 * Watches the neighbour search's running totals (NarumiStatusWords) as the host reads them back, and finds the one
 * reason a Context gives for warning that the search costs more than it should: blocks overflowing a list already at
 * its largest (a cutoff too long for the number of particles, or NoCutoff on many), or a list grown to more than 1.5
 * times the fewest tiles seen for the same range of listed blocks.  Each warning says what the user can do.  A box
 * small for its cutoff (block pairs taken as interacting untested, blocks listed without the atom filter) is searched
 * as it should be: no warning.  A device of a multi-device Context lists only its share of the blocks and a margin,
 * and lists another range, with more or fewer tiles, when its share moves: each range starts a reference of its own.
 * Host code, no device needed.
 */
class NarumiSearchMonitor {
public:
    /** Evaluations numbered firstEvaluation on (counting from 1, as the status words' evaluations do) list a new range. */
    void listRangeChanged(unsigned long long firstEvaluation) {
        rangeSince = firstEvaluation;
    }
    /**
     * Take the totals just read.  listAtLargest: the tile list cannot grow any more; numAtoms and noCutoff: the
     * system's, for the advice.  Returns the warning the first time one applies (then never again), else "".
     */
    std::string note(const NarumiStatusWords& words, bool listAtLargest, int numAtoms, bool noCutoff);
    /** The totals last taken. */
    const NarumiStatusWords& totals() const {
        return last;
    }

private:
    NarumiStatusWords last = {};
    double fewestTiles = 0;                  // the fewest tiles per evaluation of the current range: the reference
    unsigned long long rangeSince = 1;       // the first evaluation of the range now listed
    unsigned long long referenceSince = 0;   // the range fewestTiles belongs to
    bool warned = false;
};

} // namespace OpenMMNarumi

#endif // NARUMI_SEARCH_MONITOR_H_
