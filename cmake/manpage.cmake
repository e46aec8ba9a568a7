# manpage.cmake: writes OUTPUT from `PROGRAM help OPTION` (cmake -P, at build time):
# OPTION --man (impactsweep(1), the default) or --man-job (impactsweep-job(5)).
# (a sanitizer build's leak report at exit would fail the build: the tests check leaks)
if(NOT DEFINED OPTION)
  set(OPTION --man)
endif()
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
execute_process(COMMAND ${PROGRAM} help ${OPTION} OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE ${OUTPUT})
  message(FATAL_ERROR "${PROGRAM} help ${OPTION} failed (${status})")
endif()
