# manpage.cmake: writes OUTPUT from `PROGRAM help --man` (cmake -P, at build time).
# (a sanitizer build's leak report at exit would fail the build: the tests check leaks)
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
execute_process(COMMAND ${PROGRAM} help --man OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE ${OUTPUT})
  message(FATAL_ERROR "${PROGRAM} help --man failed (${status})")
endif()
