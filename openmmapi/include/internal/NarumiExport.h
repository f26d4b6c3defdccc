#ifndef OPENMM_NARUMI_EXPORT_H_
#define OPENMM_NARUMI_EXPORT_H_

/**
 * OPENMM_EXPORT_NARUMI marks the classes and functions of the API library (libOpenMMNarumi) that programs and the
 * platforms' plugins use, as OPENMM_EXPORT does OpenMM's: on Windows dllexport while the library is built (CMake
 * defines OPENMM_NARUMI_BUILDING_SHARED_LIBRARY) and dllimport in its users; elsewhere default visibility, so they
 * stay visible in a build with -fvisibility=hidden.
 */
#if defined(_MSC_VER)
    #if defined(OPENMM_NARUMI_BUILDING_SHARED_LIBRARY)
        #define OPENMM_EXPORT_NARUMI __declspec(dllexport)
    #else
        #define OPENMM_EXPORT_NARUMI __declspec(dllimport)
    #endif
#else
    #define OPENMM_EXPORT_NARUMI __attribute__((visibility("default")))
#endif

#endif // OPENMM_NARUMI_EXPORT_H_
