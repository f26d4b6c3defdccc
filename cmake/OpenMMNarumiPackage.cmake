# The C++ package (NARUMI_INSTALL_CXX_PACKAGE, on in plain CMake builds, off in the wheel): what `cmake --install` puts
# under the prefix for C++ programs, laid out as OpenMM and its plugins are:
#   include/openmmnarumi/        the API headers (openmmapi/include and the export macro, internal/NarumiExport.h)
#   lib/libOpenMMNarumi.so       the API library: the forces, the converter, the XML serialization proxies
#   lib/plugins/                 the platforms' plugins (Reference and CPU; CUDA where it was built), for
#                                OpenMM::Platform::loadPluginsFromDirectory (an OpenMM installation as prefix puts
#                                them into OpenMM's own plugin folder)
#   lib/cmake/OpenMMNarumi/      find_package(OpenMMNarumi): OpenMMNarumi::OpenMMNarumi and OpenMMNarumi_PLUGIN_DIR
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NARUMI_CXX_INCLUDE_DIR "${CMAKE_INSTALL_INCLUDEDIR}/openmmnarumi")
set(NARUMI_CXX_PLUGIN_DIR "${CMAKE_INSTALL_LIBDIR}/plugins")
set(NARUMI_CXX_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/OpenMMNarumi")

install(TARGETS OpenMMNarumi EXPORT OpenMMNarumiTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    INCLUDES DESTINATION "${NARUMI_CXX_INCLUDE_DIR}")
set(narumi_plugins OpenMMNarumiReference)
if(TARGET OpenMMNarumiCUDA)
    list(APPEND narumi_plugins OpenMMNarumiCUDA)
endif()
install(TARGETS ${narumi_plugins}
    LIBRARY DESTINATION "${NARUMI_CXX_PLUGIN_DIR}"
    RUNTIME DESTINATION "${NARUMI_CXX_PLUGIN_DIR}")
install(FILES
    openmmapi/include/AttachedRDFSampler.h
    openmmapi/include/NarumiKernels.h
    openmmapi/include/NarumiNonbondedForce.h
    openmmapi/include/NonbondedForceConversion.h
    openmmapi/include/RDFSampler.h
    openmmapi/include/RDFSamplerKernels.h
    DESTINATION "${NARUMI_CXX_INCLUDE_DIR}")
install(FILES openmmapi/include/internal/NarumiExport.h DESTINATION "${NARUMI_CXX_INCLUDE_DIR}/internal")

install(EXPORT OpenMMNarumiTargets NAMESPACE OpenMMNarumi:: DESTINATION "${NARUMI_CXX_CMAKE_DIR}")
configure_package_config_file(cmake/OpenMMNarumiConfig.cmake.in "${PROJECT_BINARY_DIR}/OpenMMNarumiConfig.cmake"
    INSTALL_DESTINATION "${NARUMI_CXX_CMAKE_DIR}" PATH_VARS NARUMI_CXX_PLUGIN_DIR)
# The plugins must match the OpenMM release they were built against; 0.x releases may change the API.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/OpenMMNarumiConfigVersion.cmake"
    VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES
    "${PROJECT_BINARY_DIR}/OpenMMNarumiConfig.cmake"
    "${PROJECT_BINARY_DIR}/OpenMMNarumiConfigVersion.cmake"
    cmake/OpenMMImport.cmake
    DESTINATION "${NARUMI_CXX_CMAKE_DIR}")
