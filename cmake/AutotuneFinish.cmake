# AutotuneFinish.cmake: the last step of autotune_tuned_header's build command, once autotune
# has written NAME_tuned.h and NAME.mk:
#   cmake -DMK=NAME.mk -DFLAGS=out -DNVCC=nvcc -DKERNEL=k.cu -DINCLUDES="-Idir;..."
#         -DHEADER=NAME_tuned.h -DDEPFILE=out -P AutotuneFinish.cmake
# FLAGS gets the winner's nvcc flags as an nvcc --options-file; DEPFILE what the header depends
# on through the kernel's includes. With -DAUTOTUNE=autotune -DCONFIG=x.yaml (a header from
# recorded results), a spec that changed since they were tuned is warned about. A header of an
# incomplete run (NAME_COMPLETE := 0: interrupted, stopped, or a search) is warned about, or with
# -DREQUIRE_COMPLETE=ON refused: the header is removed, so that the next build runs this again.
# With -DSLOTS=N -DSLOT_FLAGS=dir/NAME (VARIANT_SOURCES), dir/NAME.vK.nvcc-flags for each slot K
# below N: variant K's recipe and -DAUTOTUNE_VARIANT_SLOT=K where the header has a variant K,
# else empty (the slot's wrappers then compile nothing); more variants than slots is an error.

# The recipe is only known once tuned, hence a file the compile reads: the fragment's first
# NAME_NVCC_FLAGS and NAME_INCLUDE_FLAGS outside an ifeq block (the default of a header tuned on
# several GPUs), with the fragment's own directory for $(NAME_FRAGMENT_DIR) and make's escapes
# undone ($$ is $, \# is #).
file(STRINGS "${MK}" lines)
get_filename_component(mk_dir "${MK}" DIRECTORY)
function(_autotune_mk_value key out)
  set(depth 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^ifeq ")
      math(EXPR depth "${depth} + 1")
    elseif(line MATCHES "^endif")
      math(EXPR depth "${depth} - 1")
    elseif(depth EQUAL 0 AND line MATCHES "^[A-Za-z0-9_]+_${key} :=[ \t]*(.*)$")
      set(value "${CMAKE_MATCH_1}")
      string(REGEX REPLACE "\\$\\([A-Za-z0-9_]+_FRAGMENT_DIR\\)" "${mk_dir}/" value "${value}")
      string(REPLACE "$$" "$" value "${value}")
      string(REPLACE "\\#" "#" value "${value}")
      set(${out} "${value}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# A variable's value with its `+=` lines (outside ifeq blocks; a variant's recipe has no other).
function(_autotune_mk_flags key out)
  set(var "")
  set(value "")
  foreach(line IN LISTS lines)
    if(var STREQUAL "" AND line MATCHES "^([A-Za-z0-9_]+_${key}) :=[ \t]*(.*)$")
      set(var "${CMAKE_MATCH_1}")
      set(value "${CMAKE_MATCH_2}")
    elseif(NOT var STREQUAL "" AND line MATCHES "^${var} \\+=[ \t]*(.*)$")
      string(APPEND value " ${CMAKE_MATCH_1}")
    endif()
  endforeach()
  string(REGEX REPLACE "\\$\\([A-Za-z0-9_]+_FRAGMENT_DIR\\)" "${mk_dir}/" value "${value}")
  string(REPLACE "$$" "$" value "${value}")
  string(REPLACE "\\#" "#" value "${value}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

_autotune_mk_value(NVCC_FLAGS flags)
_autotune_mk_value(INCLUDE_FLAGS include_flags)
_autotune_mk_value(TUNED_ARCH tuned_arch)
string(STRIP "${flags} ${include_flags}" flags)
file(WRITE "${FLAGS}" "${flags}\n")

if(SLOTS)
  set(variants "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[A-Za-z0-9_]+_VARIANTS :=(.*)$")
      string(REGEX MATCHALL "[0-9]+" variants "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(LENGTH variants n)
  if(n GREATER SLOTS)
    file(REMOVE "${HEADER}")
    message(FATAL_ERROR "autotune: ${HEADER} has ${n} variants, but the build has ${SLOTS} variant slots, one "
      "per instance of the config: its results hold more instances than the config. Give results of the config "
      "as it is, or tune it (drop RESULTS)")
  endif()
  math(EXPR last "${SLOTS} - 1")
  foreach(k RANGE ${last})
    set(slot "")
    list(FIND variants ${k} at) # not IN_LIST: a script runs without the policies it needs
    if(at GREATER -1)
      _autotune_mk_flags(V${k}_NVCC_FLAGS slot)
      _autotune_mk_flags(V${k}_INCLUDE_FLAGS slot_includes)
      string(STRIP "${slot}" slot)
      string(STRIP "${slot_includes}" slot_includes)
      string(STRIP "${slot} ${slot_includes}" slot)
      string(STRIP "${slot} -DAUTOTUNE_VARIANT_SLOT=${k}" slot)
    elseif(n EQUAL 0 AND k EQUAL 0) # a header without instances: its one recipe
      string(STRIP "${flags} -DAUTOTUNE_VARIANT_SLOT=0" slot)
    endif()
    file(WRITE "${SLOT_FLAGS}.v${k}.nvcc-flags" "${slot}\n")
  endforeach()
endif()

# The arch is part of the recipe: a target built for other GPUs compiles another binary.
if(ARCHS AND tuned_arch MATCHES "^sm_([0-9]+[a-z]?)$")
  set(want "${CMAKE_MATCH_1}")
  set(found FALSE)
  foreach(a IN LISTS ARCHS)
    string(REGEX REPLACE "-(real|virtual)$" "" a "${a}")
    if(a STREQUAL want)
      set(found TRUE)
    endif()
  endforeach()
  if(NOT found)
    message(WARNING "autotune: ${HEADER} was tuned for ${tuned_arch}, but the target builds for "
      "CUDA_ARCHITECTURES '${ARCHS}': its kernel is not the binary that was tuned (add ${want})")
  endif()
endif()

# Where nvcc cannot list the includes (a missing include directory or define that only the
# tuning passes), the kernel alone: re-tuning then follows the config and the kernel.
set(rc 1)
if(NVCC)
  execute_process(COMMAND "${NVCC}" -MM ${INCLUDES} -MT "${HEADER}" -MF "${DEPFILE}"
    -x cu "${KERNEL}" RESULT_VARIABLE rc ERROR_VARIABLE err)
endif()
if(NOT rc EQUAL 0)
  message(WARNING "autotune: nvcc -MM could not list the includes of ${KERNEL} (${err}): "
    "only the kernel and the config are tracked")
  string(REPLACE " " "\\ " target "${HEADER}")
  string(REPLACE " " "\\ " kernel "${KERNEL}")
  file(WRITE "${DEPFILE}" "${target}: ${kernel}\n")
endif()

# Recorded results may be of an earlier config or kernel: said, as the Makefile example's
# check-spec does, while the build goes on (a checked-in sample is stale by nature).
if(CONFIG)
  set(tuned "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[A-Za-z0-9_]+_SPEC_HASH := (.*)$")
      set(tuned "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  execute_process(COMMAND "${AUTOTUNE}" validate --print-spec-hash "${CONFIG}" RESULT_VARIABLE rc
    OUTPUT_VARIABLE now ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(WARNING "autotune: ${CONFIG} does not load (${err}): cannot tell whether ${HEADER} is stale")
  elseif(NOT now STREQUAL tuned)
    message(WARNING "autotune: ${HEADER} comes from results tuned for spec '${tuned}', but ${CONFIG} and "
      "its kernel are now '${now}': its values were measured on other code (tune again: drop RESULTS)")
  endif()
endif()

# An interrupted or stopped run's header holds the best of what was measured, not the best: said,
# and refused when asked. A search chose what to measure: said, refused only when asked.
set(complete "")
set(run "")
set(note "")
foreach(line IN LISTS lines)
  if(line MATCHES "^# INCOMPLETE: (.*)$")
    set(note "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^[A-Za-z0-9_]+_COMPLETE := (.*)$")
    set(complete "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^[A-Za-z0-9_]+_RUN := (.*)$")
    set(run "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(complete STREQUAL "0")
  if(REQUIRE_COMPLETE)
    file(REMOVE "${HEADER}")
    message(FATAL_ERROR "autotune: ${HEADER} is of an incomplete run (${note}), and REQUIRE_COMPLETE refuses "
      "it: complete the run (the same command resumes it; a search: tune without --budget), or drop "
      "REQUIRE_COMPLETE")
  elseif(run STREQUAL "search")
    message(STATUS "autotune: ${HEADER}: ${note}")
  else()
    message(WARNING "autotune: ${HEADER} is of an incomplete run: ${note} (REQUIRE_COMPLETE refuses "
      "such a header)")
  endif()
endif()
