// Long-range Lennard-Jones correction of NarumiNonbondedForce (the same definition as OpenMM's NonbondedForce).
#include "internal/NarumiLennardJonesPairs.h"
#include "internal/NarumiNonbondedForceImpl.h"
#include <cmath>
#include <utility>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

/**
 * Integrals over [rs, rc] of r^-10 (1 - S(r)) and r^-4 (1 - S(r)), S being OpenMM's switching polynomial: a pair's
 * switched-off tail, integral of r^2 (C12/r^12 - C6/r^6) (1 - S), is C12 times the first minus C6 times the second.
 */
void switchedTailIntegrals(double rs, double rc, double& integral12, double& integral6) {
    // Composite 16-point Gauss-Legendre on 32 panels: the integrands are smooth on [rs, rc] (rs > 0), so this
    // reaches double round-off for any switching range a force field uses.
    static const double nodes[8] = {0.0950125098376374, 0.2816035507792589, 0.4580167776572274, 0.6178762444026438,
                                    0.7554044083550030, 0.8656312023878318, 0.9445750230732326, 0.9894009349916499};
    static const double weights[8] = {0.1894506104550685, 0.1826034150449236, 0.1691565193950025, 0.1495959888165767,
                                      0.1246289712555339, 0.0951585116824928, 0.0622535239386479, 0.0271524594117541};
    const int numPanels = 32;
    double panelWidth = (rc - rs) / numPanels;
    double sum12 = 0, sum6 = 0;
    for (int panel = 0; panel < numPanels; panel++) {
        double mid = rs + (panel + 0.5) * panelWidth;
        for (int k = 0; k < 8; k++)
            for (double sign : {-1.0, 1.0}) {
                double r = mid + sign * 0.5 * panelWidth * nodes[k];
                double t = (r - rs) / (rc - rs);
                double switchValue = 1 + t * t * t * (-10 + t * (15 - 6 * t));
                double inverseR4 = 1 / (r * r * r * r);
                sum12 += weights[k] * inverseR4 * inverseR4 / (r * r) * (1 - switchValue);
                sum6 += weights[k] * inverseR4 * (1 - switchValue);
            }
    }
    integral12 = 0.5 * panelWidth * sum12;
    integral6 = 0.5 * panelWidth * sum6;
}

} // namespace

double NarumiNonbondedForceImpl::calcDispersionCorrection(const System& system, const NarumiNonbondedForce& force) {
    if (force.getNonbondedMethod() != NarumiNonbondedForce::CutoffPeriodic)
        return 0.0;
    // The mean of C6 and C12 is taken over the N(N+1)/2 pairs by classes of identical Lennard-Jones behaviour, each
    // pair with the parameters that it uses, as NonbondedForce does with Lorentz-Berthelot (epsilon sigma^n = C_n / 4).
    NarumiLennardJonesPairs pairs(force);
    double rc = force.getCutoffDistance();
    double integral12 = 0, integral6 = 0;
    if (force.getUseSwitchingFunction())
        switchedTailIntegrals(force.getSwitchingDistance(), rc, integral12, integral6);
    double sum12 = 0, sum6 = 0;
    for (int a = 0; a < pairs.getNumClasses(); a++)
        for (int b = 0; b <= a; b++) {
            long long na = pairs.classSize(a), nb = pairs.classSize(b);
            double count = (a == b ? 0.5 * na * (na + 1.0) : (double) na * nb);
            double c6, c12;
            pairs.pairParameters(pairs.classMember(a), pairs.classMember(b), c6, c12);
            sum12 += count * c12;
            sum6 += count * c6;
        }
    double n = system.getNumParticles();
    double numPairs = 0.5 * n * (n + 1);
    return 2 * M_PI * n * n * (sum12 * (1 / (9 * pow(rc, 9)) + integral12) - sum6 * (1 / (3 * pow(rc, 3)) + integral6)) / numPairs;
}
