# Locates OpenMM as installed by the PyPI wheels (openmm, openmm-cuda-13), which ship headers and
# libraries but no CMake package, and defines imported targets:
#   OpenMM::OpenMM  libOpenMM.so with its include directory
#   OpenMM::CUDA    plugins/libOpenMMCUDA.so (only when the openmm-cuda wheel is installed)
# OPENMM_DIR may be given; otherwise it is asked from the Python interpreter.

if(NOT OPENMM_DIR)
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    execute_process(
        COMMAND "${Python3_EXECUTABLE}" -c "import os, openmm.version; print(os.path.dirname(openmm.version.openmm_library_path))"
        OUTPUT_VARIABLE detected_openmm_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE detect_result)
    if(NOT detect_result EQUAL 0)
        message(FATAL_ERROR "OpenMM not found: pip install openmm==8.6.1, or pass -DOPENMM_DIR=<dir with include/ and lib/>")
    endif()
    set(OPENMM_DIR "${detected_openmm_dir}" CACHE PATH "OpenMM installation (the wheel's OpenMM.libs folder)")
endif()

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
message(STATUS "OpenMM: ${OPENMM_DIR} (CUDA platform library: ${OPENMM_CUDA_LIBRARY})")
