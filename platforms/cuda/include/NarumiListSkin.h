#ifndef NARUMI_LIST_SKIN_H_
#define NARUMI_LIST_SKIN_H_

namespace OpenMMNarumi {

/**
 * The neighbour list's skin (Verlet buffer), chosen from how often the list is rebuilt.  The list is rebuilt once an
 * atom has moved half the skin, so builds per evaluation times the skin measures how far the fastest atoms go per
 * evaluation, whatever the skin.  Where that is large (4 fs steps with heavy hydrogens: a build about every second
 * evaluation with 0.1 nm) a wider skin saves more searches than its extra tiles cost, and where it is small (2 fs) it
 * does not (docs/benchmarks.md, "Design decisions").  The skin may change only at an evaluation that rebuilds
 * the list anyway (a sort): a kept list stays valid for the skin it was built with.  The forces do not depend on it.
 * Host code, no device needed.
 */
class NarumiListSkin {
public:
    /** nm: where the list lasts three evaluations or more (2 fs steps), and the first skin of a Context. */
    static constexpr double NARROW = 0.1;
    /** nm: where it is rebuilt about every second evaluation (4 fs steps with hydrogen mass repartitioning). */
    static constexpr double WIDE = 0.14;
    /** nm per evaluation (builds per evaluation times the skin) above which WIDE is chosen: 4 fs gives 0.04-0.05, 2 fs 0.025. */
    static constexpr double WIDE_ABOVE = 0.035;
    /** The fewest evaluations a choice is made from. */
    static constexpr unsigned long long FEWEST_EVALUATIONS = 10;

    /** fixedSkin >= 0: that skin throughout (the diagnostic list-skin, for measurements and tests); negative: chosen. */
    explicit NarumiListSkin(double fixedSkin = -1) : fixed(fixedSkin), skin(fixedSkin >= 0 ? fixedSkin : NARROW) {
    }
    double current() const {
        return skin;
    }
    bool isChosen() const {
        return fixed < 0;
    }
    /**
     * At an evaluation that rebuilds the list anyway: the skin for this build and those after it, from the device's
     * running totals of evaluations and list builds as last read (the choice is made from those since the last one).
     */
    double atForcedRebuild(unsigned long long evaluations, unsigned long long builds);

private:
    double fixed, skin;
    unsigned long long evaluationsBefore = 0, buildsBefore = 0;
};

} // namespace OpenMMNarumi

#endif // NARUMI_LIST_SKIN_H_
