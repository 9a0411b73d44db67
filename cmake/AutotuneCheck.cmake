# AutotuneCheck.cmake: the step autotune_tuned_header adds after its target is built:
#   cmake -DAUTOTUNE=autotune -DBINARY=file -DRESULTS="a.csv;b.csv" -P AutotuneCheck.cmake
# runs `autotune check BINARY RESULTS`: each winner's code must be in the target exactly as tuned
# (a per-size variant under its own name). When it is not (exit 1: a flag added or lost, another
# target, a separable target's relocatable code) the build fails, naming the difference: the
# program would not run what was measured. Results that cannot be checked (written before the
# kernel_hash column, or device code compressed: exit 2) give a warning and the build goes on.
execute_process(COMMAND "${AUTOTUNE}" check "${BINARY}" ${RESULTS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(STRIP "${out}${err}" said)
if(rc EQUAL 0)
  message(STATUS "${said}")
elseif(rc EQUAL 1)
  message(FATAL_ERROR "${BINARY} is not the tuned code (autotune check):\n${said}")
else()
  message(WARNING "${BINARY} was not checked against the tuned code (autotune check):\n${said}")
endif()
