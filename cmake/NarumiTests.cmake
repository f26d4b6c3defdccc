# How every C++ test executable of the force is built: the API library, GoogleTest, the plugins' locations (loaded at
# run time, NarumiTestSystems.h), tests/cpp for the shared test bodies, tests/support for the test devices and common/
# for the Coulomb constant.
function(narumi_add_force_test name source)
    add_executable(${name} ${source})
    target_link_libraries(${name} PRIVATE OpenMMNarumi GTest::gtest_main)
    target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/tests/cpp" "${PROJECT_SOURCE_DIR}/tests/support"
        "${PROJECT_SOURCE_DIR}/common/include")
    target_compile_options(${name} PRIVATE -Wall)
    target_compile_definitions(${name} PRIVATE
        OPENMM_PLUGIN_DIR="${OPENMM_PLUGIN_DIR}"
        NARUMI_REFERENCE_PLUGIN="$<TARGET_FILE:OpenMMNarumiReference>")
    add_dependencies(${name} OpenMMNarumiReference)
endfunction()
