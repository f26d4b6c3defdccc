# Locates OpenMM as installed by the PyPI wheels (openmm, openmm-cuda-13), which ship headers and
# libraries but no CMake package, and defines imported targets (cmake/OpenMMImport.cmake):
#   OpenMM::OpenMM  libOpenMM.so with its include directory
#   OpenMM::CUDA    plugins/libOpenMMCUDA.so (only when the openmm-cuda wheel is installed)
# and OPENMM_DIR, OPENMM_PLUGIN_DIR, OPENMM_VERSION.  NARUMI_OPENMM_DIR may name another installation (include/ and
# lib/); otherwise it is asked from the Python interpreter of this configure run, every run (plain variables, never
# cached): pip's isolated build environments are new each time, and a cached path would point into one that is gone.

include("${CMAKE_CURRENT_LIST_DIR}/OpenMMImport.cmake")
find_package(Python3 REQUIRED COMPONENTS Interpreter)
narumi_openmm_from_python("${Python3_EXECUTABLE}" detected_openmm_dir OPENMM_VERSION)
if(NOT OPENMM_VERSION)
    message(FATAL_ERROR "OpenMM not found by ${Python3_EXECUTABLE}: pip install openmm==8.6.1")
endif()
if(NARUMI_OPENMM_DIR)
    set(OPENMM_DIR "${NARUMI_OPENMM_DIR}")
else()
    set(OPENMM_DIR "${detected_openmm_dir}")
endif()
narumi_import_openmm("${OPENMM_DIR}" openmm_error)
if(openmm_error)
    message(FATAL_ERROR "${openmm_error}: pip install openmm==8.6.1, or set NARUMI_OPENMM_DIR to an OpenMM installation")
endif()
set(OPENMM_PLUGIN_DIR "${OPENMM_DIR}/lib/plugins")
message(STATUS "OpenMM ${OPENMM_VERSION}: ${OPENMM_DIR} (CUDA platform library: ${OPENMM_CUDA_LIBRARY})")
