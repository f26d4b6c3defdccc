#include "NarumiSearchMonitor.h"

using namespace OpenMMNarumi;
using namespace std;

string NarumiSearchMonitor::note(const NarumiStatusWords& words, bool listAtLargest, int numAtoms, bool noCutoff) {
    if (words.evaluations <= last.evaluations) {
        last = words;
        return "";
    }
    double evaluations = (double) (words.evaluations - last.evaluations);
    double tiles = (words.listedTiles - last.listedTiles) / evaluations;
    bool overflowed = words.overflowBlocks > last.overflowBlocks;
    // Tiles are compared only within one range: evaluations read together from before a change are no reference.
    bool oneRange = last.evaluations + 1 >= rangeSince;
    if (oneRange && referenceSince != rangeSince) {
        fewestTiles = 0;
        referenceSince = rangeSince;
    }
    if (oneRange && !overflowed && (fewestTiles == 0 || tiles < fewestTiles))
        fewestTiles = tiles;  // blocks that overflow list no tiles: such evaluations are no reference
    last = words;
    if (warned)
        return "";
    // Untested block pairs and unfiltered blocks (a box within a block's size of twice the cutoff) are the right
    // search for such a box: the stage report counts them, and no warning is given.
    string what;
    if (overflowed && listAtLargest)
        what = "the neighbour list of " + to_string(numAtoms) + " particles cannot hold every pair within the cutoff, so some "
               "blocks are computed against all others and these evaluations are slower; " +
               (noCutoff ? string("CutoffNonPeriodic with a cutoff, instead of NoCutoff, keeps the list within its bound")
                         : string("a shorter cutoff keeps the list within its bound"));
    else if (oneRange && fewestTiles > 0 && tiles > 1.5 * fewestTiles)
        what = "the neighbour list grew from " + to_string((long long) fewestTiles) + " to " + to_string((long long) tiles) +
               " tiles per evaluation and these evaluations are slower: particles have come closer together than before. "
               "If the system condensed, nothing is wrong; if it is becoming unstable (a time step too long for its constraints "
               "or masses, overlapping particles), the energy will show it; otherwise this is a defect of the search: please "
               "report it";
    warned = !what.empty();
    return what;
}
