// openmmnarumi._rdf: the RDF engine for Python.  std::invalid_argument becomes ValueError, std::runtime_error
// RuntimeError (pybind11's standard translation).

#include "RdfEngine.h"
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <variant>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace py = pybind11;
using namespace OpenMMNarumi::Rdf;

namespace {

Backend parseBackend(const std::string& name) {
    if (name == "auto") return Backend::Auto;
    if (name == "cpu") return Backend::CPU;
    if (name == "cuda") return Backend::CUDA;
    throw std::invalid_argument("backend = '" + name + "' is not one of 'auto', 'cpu', 'cuda'");
}

Algorithm parseAlgorithm(const std::string& name) {
    if (name == "auto") return Algorithm::Auto;
    if (name == "all-pairs") return Algorithm::AllPairs;
    if (name == "cell-list") return Algorithm::CellList;
    throw std::invalid_argument("algorithm = '" + name + "' is not one of 'auto', 'all-pairs', 'cell-list'");
}

template <class T>
py::array_t<T> toArray(const std::vector<T>& values) {
    py::array_t<T> array(values.size());
    std::copy(values.begin(), values.end(), array.mutable_data());
    return array;
}

/** The box as 9 doubles, or nothing. */
std::optional<std::vector<double>> boxValues(const py::object& box) {
    if (box.is_none())
        return std::nullopt;
    auto array = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(box);
    if (!array || array.size() != 9) {
        std::ostringstream text;
        text << "box must be None or 3 x 3 box vectors in nm (got " << py::str(box.attr("__repr__")()).cast<std::string>() << ")";
        throw std::invalid_argument(text.str());
    }
    return std::vector<double>(array.data(), array.data() + 9);
}

void checkShape(const py::array& positions, int numAtoms) {
    if (positions.ndim() != 2 || positions.shape(0) != numAtoms || positions.shape(1) != 3) {
        std::ostringstream text;
        text << "positions must have shape (" << numAtoms << ", 3); got (";
        for (py::ssize_t d = 0; d < positions.ndim(); d++)
            text << (d ? ", " : "") << positions.shape(d);
        text << ")";
        throw std::invalid_argument(text.str());
    }
}

class PyRdfEngine {
public:
    PyRdfEngine(int numAtoms, const std::vector<int>& selection1, std::optional<std::vector<int>> selection2, double rMax,
                int bins, double rMin, std::optional<std::vector<int>> exclusionGroups, const std::string& backend,
                const std::string& algorithm, int cpuThreads, const std::variant<int, std::vector<int> >& cudaDevice)
        : numAtoms_(numAtoms) {
        RdfSettings settings;
        settings.rMin = rMin;
        settings.rMax = rMax;
        settings.bins = bins;
        settings.backend = parseBackend(backend);
        settings.algorithm = parseAlgorithm(algorithm);
        settings.cpuThreads = cpuThreads;
        if (std::holds_alternative<int>(cudaDevice))
            settings.cudaDevice = std::get<int>(cudaDevice);
        else
            settings.cudaDevices = std::get<std::vector<int> >(cudaDevice);
        engine_ = std::make_unique<RdfEngine>(numAtoms, selection1, selection2 ? &*selection2 : nullptr, settings,
                                              exclusionGroups ? *exclusionGroups : std::vector<int>());
    }

    void addFrameFloat(const py::array_t<float, py::array::c_style>& positions, const py::object& box) {
        checkShape(positions, numAtoms_);
        auto values = boxValues(box);
        py::gil_scoped_release release;
        engine_->addFrame(positions.data(), values ? values->data() : nullptr);
    }

    void addFrameDouble(const py::array_t<double, py::array::c_style | py::array::forcecast>& positions, const py::object& box) {
        checkShape(positions, numAtoms_);
        auto values = boxValues(box);
        py::gil_scoped_release release;
        engine_->addFrame(positions.data(), values ? values->data() : nullptr);
    }

    RdfEngine& engine() {
        return *engine_;
    }

private:
    int numAtoms_;
    std::unique_ptr<RdfEngine> engine_;
};

} // namespace

PYBIND11_MODULE(_rdf, m) {
    m.doc() = "Radial distribution functions on the GPU (CUDA) or the CPU; see openmmnarumi.rdf for the reporter.";
    m.def("cudaAvailable", &RdfEngine::cudaAvailable, "True if this build has the CUDA backend and a CUDA device is present.");
    m.def("maximumRMax", [](const py::object& box) { return RdfEngine::maximumRMax(boxValues(box).value().data()); },
          "Largest rMax (nm) a box allows: min(ax, by, cz) / 2.");

    py::class_<PyRdfEngine>(m, "RDFEngine", R"doc(
Accumulates g(r) between selection1 and selection2 (None: the same atoms) over frames.

Arguments: numAtoms (atoms per frame), selection1, selection2=None (atom indices), rMax (nm), bins, rMin=0 (nm),
exclusionGroups=None (one integer per atom: pairs in the same group are skipped), backend='auto'|'cpu'|'cuda',
algorithm='auto'|'all-pairs'|'cell-list', cpuThreads=0 (all cores: the CPU backend's threads, and on CUDA those that
check and gather each frame), cudaDevice=0 (or a list of devices: frames are spread over them, the counts identical to
one device's).
)doc")
        .def(py::init<int, const std::vector<int>&, std::optional<std::vector<int>>, double, int, double,
                      std::optional<std::vector<int>>, const std::string&, const std::string&, int,
                      const std::variant<int, std::vector<int> >&>(),
             py::arg("numAtoms"), py::arg("selection1"), py::arg("selection2") = py::none(), py::arg("rMax") = 1.0,
             py::arg("bins") = 200, py::arg("rMin") = 0.0, py::arg("exclusionGroups") = py::none(),
             py::arg("backend") = "auto", py::arg("algorithm") = "auto", py::arg("cpuThreads") = 0, py::arg("cudaDevice") = 0)
        // float64 first, so that lists convert to double; a float32 array matches the second overload exactly.
        .def("addFrame", &PyRdfEngine::addFrameDouble, py::arg("positions"), py::arg("box") = py::none(),
             "Adds a frame: positions (numAtoms, 3) in nm, float32 or float64; box: 3 x 3 vectors in nm (OpenMM's reduced "
             "form) or None.")
        .def("addFrame", &PyRdfEngine::addFrameFloat, py::arg("positions"), py::arg("box") = py::none())
        .def("setReferenceVolume", [](PyRdfEngine& self, double volume) { self.engine().setReferenceVolume(volume); },
             py::arg("volume"), "Volume (nm^3) that normalises frames without a periodic box.")
        .def("reset", [](PyRdfEngine& self) { self.engine().reset(); }, "Discards the frames added so far (the settings stay).")
        .def("pairCounts", [](PyRdfEngine& self) { return toArray(self.engine().pairCounts()); },
             "Ordered pairs (i in selection 1, j in selection 2, i != j) per bin, summed over frames.")
        .def("binEdges", [](PyRdfEngine& self) { return toArray(self.engine().binEdges()); },
             "The bins+1 bin edges from rMin to rMax, nm.")
        .def("binCenters", [](PyRdfEngine& self) { return toArray(self.engine().binCenters()); },
             "The centres of the bins, nm: the r of rdf() and coordinationNumber().")
        .def("rdf", [](PyRdfEngine& self) { return toArray(self.engine().rdf()); }, "g(r) at the bin centres.")
        .def("coordinationNumber", [](PyRdfEngine& self) { return toArray(self.engine().coordinationNumber()); },
             "n(r): mean number of selection-2 atoms within each bin's upper edge of a selection-1 atom.")
        .def_property_readonly("numFrames", [](PyRdfEngine& self) { return self.engine().numFrames(); }, "Frames added so far.")
        .def_property_readonly("numPairsPerFrame", [](PyRdfEngine& self) { return self.engine().numPairsPerFrame(); }, "Distinct ordered pairs counted per frame (exclusions applied).")
        .def_property_readonly("selection1Size", [](PyRdfEngine& self) { return self.engine().selection1Size(); }, "Atoms in selection 1.")
        .def_property_readonly("selection2Size", [](PyRdfEngine& self) { return self.engine().selection2Size(); }, "Atoms in selection 2 (selection 1's size for one selection).")
        .def_property_readonly("backend", [](PyRdfEngine& self) { return self.engine().backendName(); }, "'cuda' or 'cpu'.")
        .def_property_readonly("lastAlgorithm", [](PyRdfEngine& self) { return self.engine().lastAlgorithm(); }, "'all-pairs' or 'cell-list': what the last frame used.")
        .def_property_readonly("rMin", [](PyRdfEngine& self) { return self.engine().settings().rMin; }, "Lower edge of the first bin, nm.")
        .def_property_readonly("rMax", [](PyRdfEngine& self) { return self.engine().settings().rMax; }, "Upper edge of the last bin, nm.")
        .def_property_readonly("bins", [](PyRdfEngine& self) { return self.engine().settings().bins; }, "Number of bins.");
}
