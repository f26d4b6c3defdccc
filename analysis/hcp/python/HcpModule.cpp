// pybind11 module openmmnarumi._hcp: the C++ core of openmmnarumi.hcp.  C++ std::invalid_argument becomes
// ValueError and std::runtime_error RuntimeError (pybind11's standard translation).

#include "ElectrostaticSize.h"
#include "SurfacePoints.h"
#include "SurfacePotential.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>

namespace py = pybind11;
using namespace OpenMMNarumi::Hcp;

namespace {

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using IntArray = py::array_t<int, py::array::c_style | py::array::forcecast>;

// An (N, columns) array (or a flat one when columns == 1) as a flat vector.
std::vector<double> rows(const DoubleArray& array, int columns, const char* name) {
    const bool shapeOk = columns == 1 ? array.ndim() <= 1 : (array.ndim() == 2 && array.shape(1) == columns);
    if (!shapeOk)
        throw std::invalid_argument(std::string(name) + " must have shape (N, " + std::to_string(columns) + ")");
    return std::vector<double>(array.data(), array.data() + array.size());
}

std::vector<int> indices(const IntArray& array, const char* name) {
    if (array.ndim() != 1) throw std::invalid_argument(std::string(name) + " must be one-dimensional");
    return std::vector<int>(array.data(), array.data() + array.size());
}

py::array_t<double> matrix(const std::vector<double>& values, long columns) {
    py::array_t<double> out({static_cast<long>(values.size()) / columns, columns});
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

Backend parseBackend(const std::string& name) {
    if (name == "auto") return Backend::Auto;
    if (name == "cpu") return Backend::Cpu;
    if (name == "cuda") return Backend::Cuda;
    throw std::invalid_argument("backend must be 'auto', 'cpu' or 'cuda', got '" + name + "'");
}

SummationMode parseMode(const std::string& name) {
    if (name == "exact") return SummationMode::Exact;
    if (name == "hcp") return SummationMode::Hcp;
    throw std::invalid_argument("mode must be 'exact' or 'hcp', got '" + name + "'");
}

const ComponentLevel& levelByName(const ChargeHierarchy& hierarchy, const std::string& name) {
    if (name == "residue") return hierarchy.residues;
    if (name == "chain") return hierarchy.chains;
    if (name == "complex") return hierarchy.complexes;
    throw std::invalid_argument("level must be 'residue', 'chain' or 'complex', got '" + name + "'");
}

}  // namespace

PYBIND11_MODULE(_hcp, m) {
    m.doc() = "ALPB surface potential with hierarchical charge partitioning (C++/CUDA core of openmmnarumi.hcp)";
    m.attr("ALPB_ALPHA") = kAlpbAlpha;

    m.def("cuda_device_count", &cudaDeviceCount, "Number of usable CUDA devices (0 without CUDA)");
    m.def("alpb_coefficients", [](double epsIn, double epsOut) {
        const AlpbCoefficients c = alpbCoefficients(epsIn, epsOut);
        return py::make_tuple(c.chargeScale, c.monopoleScale);
    }, py::arg("eps_in"), py::arg("eps_out"),
       "(charge_scale, monopole_scale): phi = charge_scale * sum q/d - monopole_scale * Q / r (kJ/mol/e, nm)");

    m.def("effective_ellipsoid", [](const DoubleArray& positions, const DoubleArray& radii) {
        const EffectiveEllipsoid e = effectiveEllipsoid(rows(positions, 3, "positions"), rows(radii, 1, "radii"));
        return py::make_tuple(py::make_tuple(e.semiAxes[0], e.semiAxes[1], e.semiAxes[2]), e.sizeDeterminant, e.sizeEllipsoid);
    }, py::arg("positions"), py::arg("radii"), "((a, b, c), A_det, A_ell) in nm");

    m.def("carlson_rf", &carlsonRF, py::arg("x"), py::arg("y"), py::arg("z"));

    m.def("surface_points", [](const DoubleArray& positions, const DoubleArray& radii, double probe, double density,
                               const std::string& kind, int threads) {
        SurfaceKind surfaceKind;
        if (kind == "sas") surfaceKind = SurfaceKind::SolventAccessible;
        else if (kind == "contact") surfaceKind = SurfaceKind::Contact;
        else throw std::invalid_argument("surface kind must be 'sas' or 'contact', got '" + kind + "'");
        const std::vector<double> x = rows(positions, 3, "positions"), r = rows(radii, 1, "radii");
        SurfacePointSet set;
        {
            py::gil_scoped_release release;
            set = surfacePoints(x, r, probe, density, surfaceKind, threads);
        }
        py::array_t<int> atoms(static_cast<long>(set.atoms.size()));
        std::copy(set.atoms.begin(), set.atoms.end(), atoms.mutable_data());
        return py::make_tuple(matrix(set.points, 3), matrix(set.normals, 3), atoms, set.offset);
    }, py::arg("positions"), py::arg("radii"), py::arg("probe_radius"), py::arg("density"), py::arg("kind"),
       py::arg("threads") = 0, "(points, normals, atom_index, offset)");

    py::class_<SurfacePotential>(m, "SurfacePotentialEngine")
        .def(py::init([](const DoubleArray& positions, const DoubleArray& charges, const IntArray& residueOfAtom,
                         const IntArray& chainOfResidue, const IntArray& complexOfChain, double epsIn, double epsOut,
                         double electrostaticSize, double residueThreshold, double chainThreshold,
                         double complexThreshold, const std::string& backend, int threads, int device) {
                 SurfacePotentialOptions options;
                 options.epsIn = epsIn;
                 options.epsOut = epsOut;
                 options.electrostaticSize = electrostaticSize;
                 options.thresholds = {residueThreshold, chainThreshold, complexThreshold};
                 options.backend = parseBackend(backend);
                 options.numThreads = threads;
                 options.cudaDevice = device;
                 return std::make_unique<SurfacePotential>(
                     rows(positions, 3, "positions"), rows(charges, 1, "charges"),
                     indices(residueOfAtom, "residue_of_atom"), indices(chainOfResidue, "chain_of_residue"),
                     indices(complexOfChain, "complex_of_chain"), options);
             }),
             py::arg("positions"), py::arg("charges"), py::arg("residue_of_atom"), py::arg("chain_of_residue"),
             py::arg("complex_of_chain"), py::arg("eps_in"), py::arg("eps_out"), py::arg("electrostatic_size"),
             py::arg("residue_threshold"), py::arg("chain_threshold"), py::arg("complex_threshold"),
             py::arg("backend") = "auto", py::arg("threads") = 0, py::arg("device") = 0)
        .def("compute", [](SurfacePotential& self, const DoubleArray& points, const DoubleArray& offsets,
                           const std::string& mode) {
                 const std::vector<double> x = rows(points, 3, "points"), o = rows(offsets, 1, "offsets");
                 const SummationMode summation = parseMode(mode);
                 PotentialResult result;
                 {
                     py::gil_scoped_release release;
                     result = self.compute(x, o, summation);
                 }
                 py::array_t<double> potentials(static_cast<long>(result.potentials.size()));
                 std::copy(result.potentials.begin(), result.potentials.end(), potentials.mutable_data());
                 return py::make_tuple(potentials, result.total, result.deviceMilliseconds);
             }, py::arg("points"), py::arg("offsets"), py::arg("mode"),
             "(potentials in kJ/mol/e, their sum, device milliseconds or -1)")
        .def("set_positions", [](SurfacePotential& self, const DoubleArray& positions) {
                 self.setPositions(rows(positions, 3, "positions"));
             }, py::arg("positions"))
        .def_property_readonly("backend", &SurfacePotential::backendName)
        .def_property_readonly("total_charge", [](const SurfacePotential& self) { return self.hierarchy().totalCharge(); })
        .def_property_readonly("atom_order", [](const SurfacePotential& self) { return self.hierarchy().originalIndex; })
        .def("component_counts", [](const SurfacePotential& self) {
                 const ChargeHierarchy& h = self.hierarchy();
                 return py::make_tuple(h.numAtoms(), h.residues.size(), h.chains.size(), h.complexes.size());
             }, "(atoms, residues, chains, complexes) that hold atoms")
        .def("approximate_charges", [](const SurfacePotential& self, const std::string& level) {
                 const ComponentLevel& l = levelByName(self.hierarchy(), level);
                 const ChargeHierarchy& h = self.hierarchy();
                 std::vector<double> centers, negative, positive;
                 for (int k = 0; k < l.size(); ++k) {
                     const ApproximateCharges& a = l.approximations[k];
                     centers.insert(centers.end(), l.centers[k].begin(), l.centers[k].end());
                     negative.insert(negative.end(), a.negativeCenter.begin(), a.negativeCenter.end());
                     negative.push_back(a.negativeCharge);
                     positive.insert(positive.end(), a.positiveCenter.begin(), a.positiveCenter.end());
                     positive.push_back(a.positiveCharge);
                 }
                 // Atoms of each component, as original atom indices.
                 py::list members;
                 auto atomStart = [&](int k) {
                     if (&l == &h.residues) return h.residues.childStart[k];
                     if (&l == &h.chains) return h.residues.childStart[h.chains.childStart[k]];
                     return h.residues.childStart[h.chains.childStart[h.complexes.childStart[k]]];
                 };
                 for (int k = 0; k < l.size(); ++k) {
                     std::vector<int> atoms(h.originalIndex.begin() + atomStart(k), h.originalIndex.begin() + atomStart(k + 1));
                     members.append(atoms);
                 }
                 return py::make_tuple(matrix(centers, 3), matrix(negative, 4), matrix(positive, 4), members);
             }, py::arg("level"),
             "(geometric centres (K, 3), negative (K, 4: x, y, z, q), positive (K, 4), atoms of each component)");
}
