#include "NarumiSearchMonitor.h"

using namespace OpenMMNarumi;
using namespace std;

string NarumiSearchMonitor::note(const NarumiStatusWords& words, bool listAtLargest, int numBlocks) {
    if (words.evaluations <= last.evaluations) {
        last = words;
        return "";
    }
    double evaluations = (double) (words.evaluations - last.evaluations);
    double tiles = (words.listedTiles - last.listedTiles) / evaluations;
    unsigned long long untested = words.untestedBlockPairs - last.untestedBlockPairs;
    unsigned long long unfiltered = words.unfilteredBlocks - last.unfilteredBlocks;
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
    string what;
    // Small boxes (a few blocks, or the cutoff near half the box) list nearly everything anyway: no warning there.
    if ((untested + unfiltered) / evaluations > 0.05 * numBlocks && numBlocks > 32)
        what = to_string(untested) + " block pairs taken as interacting untested and " + to_string(unfiltered) +
               " blocks listed without the atom filter, because the cutoff plus a block's size reaches half the box";
    else if (overflowed && listAtLargest)
        what = "blocks overflowed a tile list already at its largest size";
    else if (oneRange && fewestTiles > 0 && tiles > 1.5 * fewestTiles)
        what = "the tile list grew from " + to_string((long long) fewestTiles) + " to " + to_string((long long) tiles) + " tiles";
    warned = !what.empty();
    return what;
}
