# The RDF engine's libraries, included from the top-level CMakeLists.txt (before the plugins) because both the
# pybind11 module (analysis/rdf/CMakeLists.txt) and OpenMM's in-context RDFSampler kernels use them:
#   NarumiRdfHost  problem set-up, box and grid, the multithreaded CPU backend, an engine on the backend it is handed
#                  (no CUDA code): the Reference/CPU kernel
#   NarumiRdfCuda  the CUDA kernels and CudaPairHistogram (device positions in, device counts out, caller's stream)
#   NarumiRdf      the whole engine: backend choice from the settings (src/RdfBackendChoice.cpp), CPU and, when
#                  NARUMI_HAVE_CUDA, CUDA backends: the pybind11 module
# Both backends must count bitwise the same pairs, so no compiler may contract a*b+c on its own: -ffp-contract=off
# (C++) and -fmad=false (CUDA); explicit fmaf stays.
# The thread pool, CUDA error check, device buffers and no-CUDA fallback are common/'s (NarumiCommon).
set(rdf_dir "${CMAKE_CURRENT_LIST_DIR}")
set(rdf_compile_options
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -ffp-contract=off -fno-math-errno>
    $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false>)

add_library(NarumiRdfCoreObjects OBJECT "${rdf_dir}/src/RdfEngine.cpp" "${rdf_dir}/src/RdfCpuBackend.cpp")
target_include_directories(NarumiRdfCoreObjects PUBLIC "${rdf_dir}/include")
target_link_libraries(NarumiRdfCoreObjects PUBLIC NarumiCommon)
target_compile_options(NarumiRdfCoreObjects PRIVATE ${rdf_compile_options})

add_library(NarumiRdfHost STATIC $<TARGET_OBJECTS:NarumiRdfCoreObjects>)
target_include_directories(NarumiRdfHost PUBLIC "${rdf_dir}/include")
target_link_libraries(NarumiRdfHost PUBLIC NarumiCommon)

if(NARUMI_HAVE_CUDA)
    add_library(NarumiRdfCuda STATIC "${rdf_dir}/cuda/RdfKernels.cu" "${rdf_dir}/cuda/RdfCudaHistogram.cu")
    target_include_directories(NarumiRdfCuda PUBLIC "${rdf_dir}/include" "${rdf_dir}/cuda")
    target_compile_options(NarumiRdfCuda PRIVATE ${rdf_compile_options})
    target_link_libraries(NarumiRdfCuda PUBLIC NarumiCommon)
    narumi_analysis_cuda_library(NarumiRdfCuda)
endif()

add_library(NarumiRdf STATIC $<TARGET_OBJECTS:NarumiRdfCoreObjects> "${rdf_dir}/src/RdfBackendChoice.cpp"
    "${rdf_dir}/src/RdfMultiDeviceBackend.cpp")
target_include_directories(NarumiRdf PUBLIC "${rdf_dir}/include")
target_link_libraries(NarumiRdf PUBLIC NarumiCommon)
target_compile_options(NarumiRdf PRIVATE ${rdf_compile_options})
if(NARUMI_HAVE_CUDA)
    target_sources(NarumiRdf PRIVATE "${rdf_dir}/cuda/RdfCudaBackend.cu")
    target_link_libraries(NarumiRdf PUBLIC NarumiRdfCuda)
    narumi_analysis_cuda_library(NarumiRdf)
endif()
