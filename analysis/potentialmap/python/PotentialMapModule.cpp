/**
 * openmmnarumi._potentialmap: the map engine for Python (python/openmmnarumi/potentialmap.py wraps it).
 * std::invalid_argument becomes ValueError and std::runtime_error RuntimeError.
 */

#include "PotentialMap.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <variant>

namespace py = pybind11;
using namespace OpenMMNarumi::PotentialMap;

namespace {

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

Method parseMethod(const std::string& name) {
    if (name == "direct")
        return Method::Direct;
    if (name == "cutoff")
        return Method::Cutoff;
    if (name == "msm")
        return Method::Msm;
    throw std::invalid_argument("method must be 'direct', 'cutoff' or 'msm', got '" + name + "'");
}

Accumulation parseAccumulation(const std::string& name) {
    if (name == "compensated")
        return Accumulation::Compensated;
    if (name == "narumi")
        return Accumulation::Narumi;
    if (name == "float")
        return Accumulation::Float;
    throw std::invalid_argument("accumulation must be 'compensated', 'narumi' or 'float', got '" + name + "'");
}

Backend parseBackend(const std::string& name) {
    if (name == "auto")
        return Backend::Auto;
    if (name == "cpu")
        return Backend::Cpu;
    if (name == "cuda")
        return Backend::Cuda;
    throw std::invalid_argument("backend must be 'auto', 'cpu' or 'cuda', got '" + name + "'");
}

Vec3 vec3(const DoubleArray& values, const char* what) {
    if (values.ndim() != 1 || values.shape(0) != 3)
        throw std::invalid_argument(std::string(what) + " must have 3 components");
    return {values.at(0), values.at(1), values.at(2)};
}

/** Checks an (numAtoms, 3) array and returns its data pointer. */
const double* positionData(const DoubleArray& positions, size_t numAtoms) {
    if (positions.ndim() != 2 || positions.shape(1) != 3 || (size_t) positions.shape(0) != numAtoms)
        throw std::invalid_argument("positions must have shape (" + std::to_string(numAtoms) + ", 3), got " +
                                    (positions.ndim() == 2 ? "(" + std::to_string(positions.shape(0)) + ", " + std::to_string(positions.shape(1)) + ")"
                                                           : std::to_string(positions.ndim()) + " dimensions"));
    return positions.data();
}

std::unique_ptr<PeriodicBox> makeBox(const py::object& box) {
    if (box.is_none())
        return nullptr;
    DoubleArray vectors = DoubleArray::ensure(box);
    if (!vectors || vectors.ndim() != 2 || vectors.shape(0) != 3 || vectors.shape(1) != 3)
        throw std::invalid_argument("box must be None or a 3 x 3 array of box vectors (rows a, b, c) in nm");
    auto result = std::make_unique<PeriodicBox>();
    for (int d = 0; d < 3; d++) {
        result->a[d] = vectors.at(0, d);
        result->b[d] = vectors.at(1, d);
        result->c[d] = vectors.at(2, d);
    }
    return result;
}

py::array_t<double> shapedLike(const Lattice& lattice) {
    return py::array_t<double>({(py::ssize_t) lattice.dims[2], (py::ssize_t) lattice.dims[1], (py::ssize_t) lattice.dims[0]});
}

/** A lattice-shaped array filled by one of the engine's read-outs (getAverage, getSum). */
py::array_t<double> latticeArray(PotentialMapEngine& engine, void (PotentialMapEngine::*readOut)(double*)) {
    auto values = shapedLike(engine.lattice());
    (engine.*readOut)(values.mutable_data());
    return values;
}

} // namespace

PYBIND11_MODULE(_potentialmap, module) {
    module.doc() = "Electrostatic potential maps (kJ/mol/e) on a lattice: direct and cutoff summation, CPU and CUDA backends";
    module.attr("COULOMB_CONSTANT") = COULOMB_CONSTANT;  // openmmnarumi.COULOMB_CONSTANT
    module.attr("COINCIDENCE_RADIUS") = COINCIDENCE_RADIUS;
    module.def("cudaAvailable", &PotentialMapEngine::cudaAvailable, "Whether this build has the CUDA backend and sees a device");
    module.def(
        "boundingBoxLattice",
        [](const DoubleArray& positions, double margin, double spacing) {
            if (positions.ndim() != 2 || positions.shape(1) != 3)
                throw std::invalid_argument("positions must have shape (n, 3)");
            std::vector<Vec3> points(positions.shape(0));
            for (size_t i = 0; i < points.size(); i++)
                points[i] = {positions.at(i, 0), positions.at(i, 1), positions.at(i, 2)};
            Lattice lattice = Lattice::boundingBox(points, margin, spacing);
            return py::make_tuple(lattice.origin, lattice.spacing, lattice.dims);
        },
        py::arg("positions"), py::arg("margin"), py::arg("spacing"),
        "(origin, spacing, dims) of the smallest lattice covering the positions plus margin (nm)");

    py::class_<PotentialMapEngine>(module, "Engine")
        .def(py::init([](const DoubleArray& origin, const DoubleArray& spacing, const std::vector<int>& dims, const DoubleArray& charges,
                         const std::string& method, double cutoff, const std::string& accumulation, const std::string& backend,
                         int cpuThreads, int directSoftwareRsqrt, const std::variant<int, std::vector<int> >& cudaDevice,
                         double msmAccuracy, double msmSpacing, double msmCutoff, int msmOrder) {
                 if (dims.size() != 3)
                     throw std::invalid_argument("dims must have 3 entries");
                 if (charges.ndim() != 1)
                     throw std::invalid_argument("charges must be a 1-dimensional array");
                 Lattice lattice;
                 lattice.origin = vec3(origin, "origin");
                 lattice.spacing = vec3(spacing, "spacing");
                 lattice.dims = {dims[0], dims[1], dims[2]};
                 Options options;
                 options.method = parseMethod(method);
                 options.cutoff = cutoff;
                 options.accumulation = parseAccumulation(accumulation);
                 options.backend = parseBackend(backend);
                 options.cpuThreads = cpuThreads;
                 options.directSoftwareRsqrt = directSoftwareRsqrt;
                 options.msmAccuracy = msmAccuracy;
                 options.msmSpacing = msmSpacing;
                 options.msmCutoff = msmCutoff;
                 options.msmOrder = msmOrder;
                 if (std::holds_alternative<int>(cudaDevice))
                     options.cudaDevice = std::get<int>(cudaDevice);
                 else
                     options.cudaDevices = std::get<std::vector<int> >(cudaDevice);
                 std::vector<double> values(charges.data(), charges.data() + charges.shape(0));
                 return std::make_unique<PotentialMapEngine>(lattice, values, options);
             }),
             py::arg("origin"), py::arg("spacing"), py::arg("dims"), py::arg("charges"), py::arg("method") = "cutoff",
             py::arg("cutoff") = 1.2, py::arg("accumulation") = "compensated", py::arg("backend") = "auto", py::arg("cpuThreads") = 0,
             py::arg("directSoftwareRsqrt") = -1, py::arg("cudaDevice") = 0, py::arg("msmAccuracy") = 1e-3,
             py::arg("msmSpacing") = 0.0, py::arg("msmCutoff") = 0.0, py::arg("msmOrder") = 5)
        .def(
            "compute",
            [](PotentialMapEngine& engine, const DoubleArray& positions, const py::object& box) {
                const double* data = positionData(positions, engine.numAtoms());
                auto periodic = makeBox(box);
                py::array_t<float> map({(py::ssize_t) engine.lattice().dims[2], (py::ssize_t) engine.lattice().dims[1],
                                        (py::ssize_t) engine.lattice().dims[0]});
                float* out = map.mutable_data();
                {
                    py::gil_scoped_release release;
                    engine.compute(data, periodic.get(), out);
                }
                return map;
            },
            py::arg("positions"), py::arg("box") = py::none(),
            "One frame's map (float32, shape (nz, ny, nx), kJ/mol/e); positions (n, 3) in nm, box None or 3 x 3 (nm)")
        .def(
            "accumulate",
            [](PotentialMapEngine& engine, const DoubleArray& positions, const py::object& box) {
                const double* data = positionData(positions, engine.numAtoms());
                auto periodic = makeBox(box);
                py::gil_scoped_release release;
                engine.accumulate(data, periodic.get());
            },
            py::arg("positions"), py::arg("box") = py::none(), "Adds one frame to the time average")
        .def("average", [](PotentialMapEngine& engine) { return latticeArray(engine, &PotentialMapEngine::getAverage); },
             "The time-averaged map (float64, shape (nz, ny, nx), kJ/mol/e)")
        .def("sum", [](PotentialMapEngine& engine) { return latticeArray(engine, &PotentialMapEngine::getSum); },
             "The sum of the accumulated frames' maps (float64, shape (nz, ny, nx), kJ/mol/e)")
        .def("reset", &PotentialMapEngine::reset)
        .def_property_readonly("numFrames", &PotentialMapEngine::numFrames)
        .def_property_readonly("backend", &PotentialMapEngine::backendName)
        .def_property_readonly("timings", &PotentialMapEngine::lastTimings, "Seconds per stage of the last frame")
        .def_property_readonly("numAtoms", &PotentialMapEngine::numAtoms)
        .def_property_readonly("dims", [](const PotentialMapEngine& engine) { return engine.lattice().dims; })
        .def_property_readonly("origin", [](const PotentialMapEngine& engine) { return engine.lattice().origin; })
        .def_property_readonly("spacing", [](const PotentialMapEngine& engine) { return engine.lattice().spacing; });
}
