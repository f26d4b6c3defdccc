#include "NarumiListSkin.h"

using namespace OpenMMNarumi;

double NarumiListSkin::atForcedRebuild(unsigned long long evaluations, unsigned long long builds) {
    if (!isChosen() || evaluations < evaluationsBefore + FEWEST_EVALUATIONS || builds < buildsBefore)
        return skin;
    double reachPerEvaluation = skin * (double) (builds - buildsBefore) / (double) (evaluations - evaluationsBefore);
    skin = reachPerEvaluation > WIDE_ABOVE ? WIDE : NARROW;
    evaluationsBefore = evaluations;
    buildsBefore = builds;
    return skin;
}
