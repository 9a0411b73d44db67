# AutotuneCheck.cmake: the step autotune_tuned_header adds after its target is built:
#   cmake -DAUTOTUNE=autotune -DBINARY=file -DRESULTS="a.csv;b.csv" -P AutotuneCheck.cmake
# runs `autotune check BINARY RESULTS`: each winner's code should be in the target exactly as tuned
# (a per-size variant under its own name). When it is not (exit 1: a flag added or lost, another
# target, a separable target's relocatable code) a warning names the difference: the program does
# not run what was measured. Results that cannot be checked (written before the kernel_hash
# column, or device code it cannot decompress: exit 2) get a warning too. Like the stale-spec and
# arch warnings, neither stops the build.
execute_process(COMMAND "${AUTOTUNE}" check "${BINARY}" ${RESULTS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(STRIP "${out}${err}" said)
if(rc EQUAL 0)
  message(STATUS "${said}")
elseif(rc EQUAL 1)
  message(WARNING "${BINARY} is not the tuned code (autotune check):\n${said}")
else()
  message(WARNING "${BINARY} was not checked against the tuned code (autotune check):\n${said}")
endif()
