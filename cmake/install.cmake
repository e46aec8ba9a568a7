# install.cmake: what `cmake --install build [--prefix P]` puts where (the GNU layout of
# GNUInstallDirs, so bin, include, lib and share below may be renamed by the usual
# CMAKE_INSTALL_<DIR> variables):
#
#   bin/impactsweep                        the engine
#   bin/impactplot                         analysis/impactplot.py, its #! line naming
#                                          IMPACTSWEEP_PYTHON (below), and the line
#                                          after it where its package is
#   bin/impactfit                          analysis/impactfit.py, its #! line likewise: the
#                                          fitter that `impactsweep fit` runs (needs scipy,
#                                          pandas), through bin/impactplot's package search
#   share/impactsweep/python/impactplot/   the package (also a library for notebooks)
#   share/impactsweep/python/impactsweep/  the Python module (open_dataset, eval, run)
#   lib/python3.X/site-packages/           both packages again, where that Python finds
#                                          them (dist-packages where it searches those)
#   include/impactsweep/model.h, error.h   the model contract, for plug-in models
#   include/impactsweep/memo.h             a cache of shared work, for them (header only)
#   include/impactsweep/lanes*.h, hybrid*.h the models' SDK, header only: the lane layer
#                                          and the hybrid-system integrator in lanes
#   lib/cmake/impactsweep/                 find_package(impactsweep): the targets
#                                          impactsweep::model (INTERFACE: headers, C11, PIC)
#                                          and impactsweep::impactsweep (the engine), and
#                                          impactsweep_add_model(NAME SOURCES ...)
#   lib/pkgconfig/impactsweep-model.pc     the same contract for other build systems
#   share/impactsweep/jobs/                the example and paper-figure job files
#   share/impactsweep/slurm/               submit (finding bin/impactsweep beside it),
#                                          impactsweep.sbatch, local-cluster.sh
#   share/doc/impactsweep/                 README.md, docs/ (the pages it links to),
#                                          LICENSE, CITATION.cff, examples/ (the
#                                          plug-in examples)
#   share/man/man1/impactsweep.1           the man page (`impactsweep help --man`)
#   share/man/man5/impactsweep-job.5       the job file's (`impactsweep help --man-job`)
#   share/bash-completion/completions/impactsweep   bash completion
#
# Nothing installed names the prefix: the package files find it relative to where they
# are, so `cmake --install build --prefix P` works whatever CMAKE_INSTALL_PREFIX was at
# configure time, and the installed tree may be moved. Nothing here changes what
# `cmake --build` does: the two scripts that are rewritten for installation (impactplot's
# #! line, submit's search for the binary) are rewritten when installing, from the
# sources as they are then.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(IMPACTSWEEP_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/impactsweep)
set(IMPACTSWEEP_STAGE ${CMAKE_BINARY_DIR}/install)

# Installs `source` as the program DESTINATION/NAME with the first match of the regular
# expression MATCH replaced by REPLACE, when installing (into the build tree's install/
# first, then like install(PROGRAMS)). Warns, and installs the source unchanged, when
# MATCH is no longer there.
function(impactsweep_install_rewritten source destination name match replace)
  if(IS_ABSOLUTE ${destination})
    set(to ${destination})
  else()
    set(to "\${CMAKE_INSTALL_PREFIX}/${destination}")
  endif()
  set(staged ${IMPACTSWEEP_STAGE}/${name})
  set(code [=[
    file(READ [[@source@]] text)
    string(REGEX MATCH [[@match@]] found "${text}")
    if(found STREQUAL "")
      message(WARNING "install: the text to rewrite is no longer in @source@: installed "
                      "unchanged")
    else()
      string(FIND "${text}" "${found}" at)
      string(LENGTH "${found}" length)
      string(SUBSTRING "${text}" 0 ${at} head)
      math(EXPR rest "${at} + ${length}")
      string(SUBSTRING "${text}" ${rest} -1 tail)
      string(APPEND head [[@replace@]] "${tail}")
      set(text "${head}")
    endif()
    file(WRITE [[@staged@]] "${text}")
    file(INSTALL [[@staged@]] DESTINATION "@to@" TYPE PROGRAM)
  ]=])
  string(CONFIGURE "${code}" code @ONLY)
  install(CODE "${code}")
endfunction()

# --- the engine -------------------------------------------------------------------------
# The installed binary keeps the run-time paths of the libraries it was linked with outside
# the system's directories (an MPI, HDF5 or SUNDIALS from modules or a prefix), so that it
# runs without LD_LIBRARY_PATH; CMAKE_INSTALL_RPATH_USE_LINK_PATH=OFF turns this off.
if(NOT DEFINED CMAKE_INSTALL_RPATH_USE_LINK_PATH OR CMAKE_INSTALL_RPATH_USE_LINK_PATH)
  set_target_properties(impactsweep PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
endif()
install(TARGETS impactsweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The man pages are the help texts (src/cli/help.c) and the job parser's and the models'
# tables (src/cli/reference.c) as roff, written by the binary itself at build time, so
# that they can never say other than `--help` and the parser do.
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/impactsweep.1
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:impactsweep>
    -DOUTPUT=${CMAKE_BINARY_DIR}/impactsweep.1 -P ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  DEPENDS impactsweep ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  COMMENT "Writing the man page impactsweep.1")
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/impactsweep-job.5
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:impactsweep> -DOPTION=--man-job
    -DOUTPUT=${CMAKE_BINARY_DIR}/impactsweep-job.5 -P ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  DEPENDS impactsweep ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  COMMENT "Writing the man page impactsweep-job.5")
add_custom_target(impactsweep_manpage ALL
  DEPENDS ${CMAKE_BINARY_DIR}/impactsweep.1 ${CMAKE_BINARY_DIR}/impactsweep-job.5)
install(FILES ${CMAKE_BINARY_DIR}/impactsweep.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_BINARY_DIR}/impactsweep-job.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
install(FILES scripts/completion/impactsweep.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME impactsweep)

# --- impactplot: needs h5py, h5netcdf, xarray, matplotlib and numpy --------------------
# The installed command's #! line names IMPACTSWEEP_PYTHON. Left empty, the first of
# python3 on PATH and /usr/bin/python3 that imports those modules is chosen (once; the
# choice is cached and shown), else `/usr/bin/env python3` with a warning. Spack passes its
# own python, which has them.
set(IMPACTSWEEP_PYTHON "" CACHE STRING
  "Interpreter named in the installed impactplot's #! line (needs h5py, xarray, matplotlib; \
empty: probe python3 on PATH, then /usr/bin/python3)")
if(IMPACTSWEEP_PYTHON STREQUAL "")
  find_program(IMPACTSWEEP_PATH_PYTHON3 python3)
  mark_as_advanced(IMPACTSWEEP_PATH_PYTHON3)
  set(chosen "")
  foreach(candidate ${IMPACTSWEEP_PATH_PYTHON3} /usr/bin/python3)
    if(chosen STREQUAL "" AND EXISTS ${candidate})
      execute_process(COMMAND ${candidate} -c "import h5py, h5netcdf, xarray, matplotlib, numpy"
                      RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
      if(status EQUAL 0)
        set(chosen ${candidate})
      endif()
    endif()
  endforeach()
  if(chosen STREQUAL "")
    # not cached: the next configuration looks again
    set(impactplot_python "/usr/bin/env python3")
    message(WARNING "No python3 with h5py, h5netcdf, xarray, matplotlib and numpy found: the "
                    "installed impactplot will run `/usr/bin/env python3` (set "
                    "IMPACTSWEEP_PYTHON to choose)")
  else()
    set(IMPACTSWEEP_PYTHON "${chosen}" CACHE STRING
      "Interpreter named in the installed impactplot's #! line (needs h5py, xarray, \
matplotlib)" FORCE)
    set(impactplot_python "${chosen}")
  endif()
else()
  set(impactplot_python "${IMPACTSWEEP_PYTHON}")
endif()
message(STATUS "The installed impactplot runs with ${impactplot_python}")
# The command is a launcher of the package impactplot/, installed under DATADIR; the line
# after its #! says where that is, relative to the command (so the tree may move).
set(impactplot_package_dir ${CMAKE_INSTALL_DATADIR}/impactsweep/python)
# Beside it, the module impactsweep (open_dataset, eval, run: the Python front door), which
# finds the installed binary at ../../../../bin from its own directory.
install(DIRECTORY analysis/impactplot analysis/impactsweep DESTINATION ${impactplot_package_dir}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
# And into the prefix's own site-packages for that Python (lib/python3.X/site-packages, or
# dist-packages where that Python searches the prefix so, as Debian's does /usr/local), so
# that `import impactsweep, impactplot` needs no PYTHONPATH where the prefix is one Python
# searches: ~/.local (the user's site), /usr/local, a virtual environment. Chosen at
# install time, for the prefix given to `cmake --install --prefix`; from there too the
# module finds bin/impactsweep four levels up.
if(impactplot_python MATCHES "^/usr/bin/env")
  set(site_python python3)
else()
  set(site_python ${impactplot_python})
endif()
install(CODE "
  execute_process(COMMAND \"${site_python}\" -c \"
import sys
prefix = sys.argv[1].rstrip('/')
version = '%d.%d' % sys.version_info[:2]
dist = prefix + '/lib/python' + version + '/dist-packages'
print('lib/python' + version + ('/dist-packages' if dist in sys.path else '/site-packages'), end='')
\" \"\${CMAKE_INSTALL_PREFIX}\" OUTPUT_VARIABLE impactsweep_site RESULT_VARIABLE failed)
  if(failed OR NOT impactsweep_site)
    message(WARNING \"${site_python} did not run: the Python packages are only under share/\")
  else()
    file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${impactsweep_site}\" TYPE DIRECTORY
         FILES \"${CMAKE_SOURCE_DIR}/analysis/impactplot\" \"${CMAKE_SOURCE_DIR}/analysis/impactsweep\"
         FILES_MATCHING PATTERN \"*.py\" PATTERN \"__pycache__\" EXCLUDE)
  endif()
")
file(RELATIVE_PATH impactplot_package_rel ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DATADIR}/impactsweep/python)
impactsweep_install_rewritten(${CMAKE_SOURCE_DIR}/analysis/impactplot.py
  ${CMAKE_INSTALL_BINDIR} impactplot "^#![^\n]*"
  "#!${impactplot_python}\nINSTALLED_PACKAGE_DIR = \"${impactplot_package_rel}\"")
# bin/impactfit, the fitter `impactsweep fit` runs (the module's impactsweep.fit): it runs
# bin/impactplot beside it, which finds the packages, so only its #! line changes
impactsweep_install_rewritten(${CMAKE_SOURCE_DIR}/analysis/impactfit.py
  ${CMAKE_INSTALL_BINDIR} impactfit "^#![^\n]*" "#!${impactplot_python}")

# --- the model contract and the SDK ------------------------------------------------------
# model.h and what it includes (error.h, by a relative #include "error.h"), under
# include/impactsweep/: plug-ins write #include <impactsweep/model.h>; memo.h, the bounded
# cache of shared work a model may keep in its workspace (header only). Beside them the
# SDK, headers only (a plug-in compiles them with its own flags and links nothing of the
# engine's): lanes.h (the lane layer, with its header per instruction set), lanes_math.h
# (sin, cos, log, exp, pow in lanes; its tables in lanes_tables.h) and hybrid.h (the
# hybrid-system integrator, with hybrid_impl.h, hybrid_events.h, hybrid_steps.h, hybrid_dop853.h,
# hybrid_trace.h, hybrid_sections.h and hybrid_lyapunov.h), which include each other
# relatively.
install(FILES src/core/contract/model.h src/core/base/error.h src/core/contract/memo.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/impactsweep)
install(FILES src/models/shared/lanes.h src/models/shared/lanes_avx512.h
              src/models/shared/lanes_avx2.h src/models/shared/lanes_sse2.h
              src/models/shared/lanes_generic.h src/models/shared/lanes_math.h
              src/models/shared/lanes_tables.h
              src/models/shared/hybrid.h src/models/shared/hybrid_impl.h
              src/models/shared/hybrid_events.h src/models/shared/hybrid_steps.h
              src/models/shared/hybrid_dop853.h
              src/models/shared/hybrid_trace.h src/models/shared/hybrid_sections.h
              src/models/shared/hybrid_lyapunov.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/impactsweep)

configure_package_config_file(cmake/impactsweepConfig.cmake.in
  ${IMPACTSWEEP_STAGE}/impactsweepConfig.cmake
  INSTALL_DESTINATION ${IMPACTSWEEP_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
# Versions: the package's version is the engine's; whether a plug-in loads is decided by
# the contract's own number, IS_MODEL_ABI_VERSION.IS_MODEL_ABI_MINOR
# (impactsweep_MODEL_ABI_VERSION, _MINOR; model.h, "Versions").
write_basic_package_version_file(${IMPACTSWEEP_STAGE}/impactsweepConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${IMPACTSWEEP_STAGE}/impactsweepConfig.cmake
              ${IMPACTSWEEP_STAGE}/impactsweepConfigVersion.cmake
        DESTINATION ${IMPACTSWEEP_PACKAGE_DIR})

# pkg-config: the prefix relative to the .pc file (${pcfiledir}), as the Config does.
set(IMPACTSWEEP_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE ${IMPACTSWEEP_PC_DIR})
  set(IMPACTSWEEP_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH up /prefix/${IMPACTSWEEP_PC_DIR} /prefix)
  string(REGEX REPLACE "/$" "" up "${up}")
  set(IMPACTSWEEP_PC_PREFIX "\${pcfiledir}/${up}")
endif()
if(IS_ABSOLUTE ${CMAKE_INSTALL_INCLUDEDIR})
  set(IMPACTSWEEP_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
else()
  set(IMPACTSWEEP_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(cmake/impactsweep-model.pc.in ${IMPACTSWEEP_STAGE}/impactsweep-model.pc @ONLY)
install(FILES ${IMPACTSWEEP_STAGE}/impactsweep-model.pc DESTINATION ${IMPACTSWEEP_PC_DIR})

# --- jobs, Slurm scripts, documentation -------------------------------------------------
install(DIRECTORY jobs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/impactsweep/jobs
        FILES_MATCHING PATTERN "*.ini" PATTERN "*.csv" PATTERN "*.py")

# slurm/submit looks for ../build/impactsweep beside itself, then on PATH; the installed
# copy also looks where bin/ is relative to share/impactsweep/slurm.
set(IMPACTSWEEP_SLURM_DIR ${CMAKE_INSTALL_DATADIR}/impactsweep/slurm)
if(IS_ABSOLUTE ${CMAKE_INSTALL_BINDIR} OR IS_ABSOLUTE ${IMPACTSWEEP_SLURM_DIR})
  set(installed_binary "${CMAKE_INSTALL_FULL_BINDIR}/impactsweep")
else()
  file(RELATIVE_PATH up_to_bin /prefix/${IMPACTSWEEP_SLURM_DIR} /prefix/${CMAKE_INSTALL_BINDIR})
  set(installed_binary "$here/${up_to_bin}/impactsweep")
endif()
impactsweep_install_rewritten(${CMAKE_SOURCE_DIR}/slurm/submit ${IMPACTSWEEP_SLURM_DIR} submit
  "for candidate in \"\\$here/\\.\\./build/impactsweep\"; do"
  "for candidate in \"$here/../build/impactsweep\" \"${installed_binary}\"; do")
install(PROGRAMS slurm/impactsweep.sbatch slurm/local-cluster.sh
        DESTINATION ${IMPACTSWEEP_SLURM_DIR})

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# docs/: the pages README.md links to, and their figures, so that the links work installed
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")
install(FILES LICENSE CITATION.cff DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
        PATTERN "build*" EXCLUDE PATTERN "*.h5" EXCLUDE)
