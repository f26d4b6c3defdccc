// Long-range Lennard-Jones correction of NarumiNonbondedForce (the same definition as OpenMM's NonbondedForce).
#include "internal/NarumiNonbondedForceImpl.h"
#include <cmath>
#include <map>
#include <utility>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

/** Integral over [rs, rc] of r^2 (sigma^12/r^12 - sigma^6/r^6) (1 - S(r)), S being OpenMM's switching polynomial. */
double switchedTailIntegral(double sigma, double rs, double rc) {
    // Composite 16-point Gauss-Legendre on 32 panels: the integrand is smooth on [rs, rc] (rs > 0), so this
    // reaches double round-off for any switching range a force field uses.
    static const double nodes[8] = {0.0950125098376374, 0.2816035507792589, 0.4580167776572274, 0.6178762444026438,
                                    0.7554044083550030, 0.8656312023878318, 0.9445750230732326, 0.9894009349916499};
    static const double weights[8] = {0.1894506104550685, 0.1826034150449236, 0.1691565193950025, 0.1495959888165767,
                                      0.1246289712555339, 0.0951585116824928, 0.0622535239386479, 0.0271524594117541};
    const int numPanels = 32;
    double panelWidth = (rc - rs) / numPanels;
    double sum = 0;
    for (int panel = 0; panel < numPanels; panel++) {
        double mid = rs + (panel + 0.5) * panelWidth;
        for (int k = 0; k < 8; k++)
            for (double sign : {-1.0, 1.0}) {
                double r = mid + sign * 0.5 * panelWidth * nodes[k];
                double t = (r - rs) / (rc - rs);
                double switchValue = 1 + t * t * t * (-10 + t * (15 - 6 * t));
                double sr6 = pow(sigma / r, 6);
                sum += weights[k] * r * r * (sr6 * sr6 - sr6) * (1 - switchValue);
            }
    }
    return 0.5 * panelWidth * sum;
}

} // namespace

double NarumiNonbondedForceImpl::calcDispersionCorrection(const System& system, const NarumiNonbondedForce& force) {
    if (force.getNonbondedMethod() != NarumiNonbondedForce::CutoffPeriodic)
        return 0.0;
    // Particles are grouped into classes of identical (sigma, epsilon); the average of epsilon sigma^n is taken
    // over the N(N+1)/2 class-weighted pairs with Lorentz-Berthelot combination, as NonbondedForce does.
    map<pair<double, double>, long long> classCounts;
    for (int i = 0; i < force.getNumParticles(); i++) {
        double charge, sigma, epsilon;
        force.getParticleParameters(i, charge, sigma, epsilon);
        classCounts[make_pair(sigma, epsilon)]++;
    }
    double rc = force.getCutoffDistance();
    bool useSwitch = force.getUseSwitchingFunction();
    double rs = force.getSwitchingDistance();
    double sum12 = 0, sum6 = 0, sumSwitch = 0;
    for (auto a = classCounts.begin(); a != classCounts.end(); ++a)
        for (auto b = classCounts.begin(); b != next(a); ++b) {
            double count = (a == b ? 0.5 * a->second * (a->second + 1.0) : (double) a->second * b->second);
            double sigma = 0.5 * (a->first.first + b->first.first);
            double epsilon = sqrt(a->first.second * b->first.second);
            double sigma6 = pow(sigma, 6);
            sum12 += count * epsilon * sigma6 * sigma6;
            sum6 += count * epsilon * sigma6;
            if (useSwitch)
                sumSwitch += count * epsilon * switchedTailIntegral(sigma, rs, rc);
        }
    double n = system.getNumParticles();
    double numPairs = 0.5 * n * (n + 1);
    return 8 * M_PI * n * n * (sum12 / (9 * pow(rc, 9)) - sum6 / (3 * pow(rc, 3)) + sumSwitch) / numPairs;
}
