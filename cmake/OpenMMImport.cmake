# OpenMM ships headers and libraries but no CMake package (the PyPI wheels put them in site-packages/OpenMM.libs).
# The one way this build (OpenMMWheel.cmake) and the installed C++ package (OpenMMNarumiConfig.cmake) find it:
#
#   narumi_openmm_from_python(<python> <folder var> <version var>)
#       the folder (include/, lib/) and version of the OpenMM that the interpreter <python> imports; both empty
#       when it cannot import openmm
#   narumi_import_openmm(<folder> <error var>)
#       the imported targets OpenMM::OpenMM (lib/libOpenMM with include/) and, when lib/plugins holds libOpenMMCUDA
#       (the openmm-cuda wheel), OpenMM::CUDA; <error var> says what is missing, empty on success

function(narumi_openmm_from_python python folder_var version_var)
    execute_process(
        COMMAND "${python}" -c
                "import os, openmm, openmm.version; print(os.path.dirname(openmm.version.openmm_library_path)); print(openmm.__version__)"
        OUTPUT_VARIABLE query OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE result)
    set(folder "")
    set(version "")
    if(result EQUAL 0)
        string(REPLACE "\n" ";" query "${query}")
        list(GET query 0 folder)
        list(GET query 1 version)
    endif()
    set(${folder_var} "${folder}" PARENT_SCOPE)
    set(${version_var} "${version}" PARENT_SCOPE)
endfunction()

function(narumi_import_openmm folder error_var)
    # Found again at every configure run: a cached path could point into a build environment that is gone.
    unset(OPENMM_LIBRARY CACHE)
    unset(OPENMM_CUDA_LIBRARY CACHE)
    find_library(OPENMM_LIBRARY OpenMM PATHS "${folder}/lib" NO_DEFAULT_PATH)
    if(NOT OPENMM_LIBRARY OR NOT EXISTS "${folder}/include/OpenMM.h")
        set(${error_var} "no OpenMM in ${folder} (lib/libOpenMM and include/OpenMM.h)" PARENT_SCOPE)
        return()
    endif()
    add_library(OpenMM::OpenMM SHARED IMPORTED)
    set_target_properties(OpenMM::OpenMM PROPERTIES
        IMPORTED_LOCATION "${OPENMM_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${folder}/include")
    find_library(OPENMM_CUDA_LIBRARY OpenMMCUDA PATHS "${folder}/lib/plugins" NO_DEFAULT_PATH)
    if(OPENMM_CUDA_LIBRARY)
        add_library(OpenMM::CUDA SHARED IMPORTED)
        set_target_properties(OpenMM::CUDA PROPERTIES IMPORTED_LOCATION "${OPENMM_CUDA_LIBRARY}" IMPORTED_NO_SONAME TRUE)
        target_link_libraries(OpenMM::CUDA INTERFACE OpenMM::OpenMM)
    endif()
    set(${error_var} "" PARENT_SCOPE)
endfunction()
