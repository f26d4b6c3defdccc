# How every analysis engine (analysis/rdf, analysis/potentialmap, analysis/hcp) is built, written once.

# A library with CUDA code of an engine: the static CUDA runtime (the Python modules then need only the driver at run
# time, and load without one), and each kernel's resources printed when NARUMI_CUDA_RESOURCE_USAGE is on.
function(narumi_analysis_cuda_library target)
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Static)
    target_link_libraries(${target} PUBLIC CUDA::cudart_static)
    if(NARUMI_CUDA_RESOURCE_USAGE)
        target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--resource-usage>)
    endif()
endfunction()

# narumi_add_analysis_module(<module> <library> <binding source> [TEST_PREFIX <prefix>] [TESTS <name>...]
#                            [CUDA_TESTS <name>...])
# The pybind11 module openmmnarumi.<module> over <library>, installed into the package, and the engine's GoogleTest
# suites tests/<name>.cpp: TESTS named <prefix><test>, and, when NARUMI_HAVE_CUDA, CUDA_TESTS named
# cuda.<prefix><test> (compiled wherever nvcc is; every test skips, never passes, without a CUDA device).
function(narumi_add_analysis_module module library binding)
    cmake_parse_arguments(PARSE_ARGV 3 arg "" "TEST_PREFIX" "TESTS;CUDA_TESTS")
    pybind11_add_module(${module} MODULE ${binding})
    target_link_libraries(${module} PRIVATE ${library})
    install(TARGETS ${module} LIBRARY DESTINATION "${NARUMI_INSTALL_DIR}")
    if(NOT NARUMI_BUILD_TESTS)
        return()
    endif()
    set(suites ${arg_TESTS})
    if(NARUMI_HAVE_CUDA)
        list(APPEND suites ${arg_CUDA_TESTS})
    endif()
    foreach(suite ${suites})
        add_executable(${suite} tests/${suite}.cpp)
        target_link_libraries(${suite} PRIVATE ${library} GTest::gtest_main)
        target_compile_options(${suite} PRIVATE -Wall)
        if(suite IN_LIST arg_CUDA_TESTS)
            target_include_directories(${suite} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support")
            gtest_discover_tests(${suite} TEST_PREFIX "cuda.${arg_TEST_PREFIX}" DISCOVERY_TIMEOUT 60)
        else()
            gtest_discover_tests(${suite} TEST_PREFIX "${arg_TEST_PREFIX}" DISCOVERY_TIMEOUT 60)
        endif()
    endforeach()
endfunction()
