# Locates OpenMM as installed by the PyPI wheels (openmm, openmm-cuda-13), which ship headers and
# libraries but no CMake package, and defines imported targets:
#   OpenMM::OpenMM  libOpenMM.so with its include directory
#   OpenMM::CUDA    plugins/libOpenMMCUDA.so (only when the openmm-cuda wheel is installed)
# and OPENMM_DIR, OPENMM_VERSION.  NARUMI_OPENMM_DIR may name another installation (include/ and lib/); otherwise it is
# asked from the Python interpreter of this configure run, every run (plain variables, never cached): pip's isolated
# build environments are new each time, and a cached path would point into one that is gone.

find_package(Python3 REQUIRED COMPONENTS Interpreter)
execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c
            "import os, openmm, openmm.version; print(os.path.dirname(openmm.version.openmm_library_path)); print(openmm.__version__)"
    OUTPUT_VARIABLE openmm_query OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE openmm_query_result)
if(NOT openmm_query_result EQUAL 0)
    message(FATAL_ERROR "OpenMM not found by ${Python3_EXECUTABLE}: pip install openmm==8.6.1")
endif()
string(REPLACE "\n" ";" openmm_query "${openmm_query}")
list(GET openmm_query 0 detected_openmm_dir)
list(GET openmm_query 1 OPENMM_VERSION)
if(NARUMI_OPENMM_DIR)
    set(OPENMM_DIR "${NARUMI_OPENMM_DIR}")
else()
    set(OPENMM_DIR "${detected_openmm_dir}")
endif()

unset(OPENMM_LIBRARY CACHE)
unset(OPENMM_CUDA_LIBRARY CACHE)
find_library(OPENMM_LIBRARY OpenMM PATHS "${OPENMM_DIR}/lib" NO_DEFAULT_PATH REQUIRED)
add_library(OpenMM::OpenMM SHARED IMPORTED)
set_target_properties(OpenMM::OpenMM PROPERTIES
    IMPORTED_LOCATION "${OPENMM_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${OPENMM_DIR}/include")
set(OPENMM_PLUGIN_DIR "${OPENMM_DIR}/lib/plugins")

find_library(OPENMM_CUDA_LIBRARY OpenMMCUDA PATHS "${OPENMM_PLUGIN_DIR}" NO_DEFAULT_PATH)
if(OPENMM_CUDA_LIBRARY)
    add_library(OpenMM::CUDA SHARED IMPORTED)
    set_target_properties(OpenMM::CUDA PROPERTIES IMPORTED_LOCATION "${OPENMM_CUDA_LIBRARY}" IMPORTED_NO_SONAME TRUE)
    target_link_libraries(OpenMM::CUDA INTERFACE OpenMM::OpenMM)
endif()
message(STATUS "OpenMM ${OPENMM_VERSION}: ${OPENMM_DIR} (CUDA platform library: ${OPENMM_CUDA_LIBRARY})")
