# AutotuneConfig.cmake: find_package(Autotune CONFIG) support. Provides AUTOTUNE_EXECUTABLE and
# autotune_tuned_header(), which builds a target against a kernel's tuned header:
#
#   find_package(Autotune 0.1 CONFIG REQUIRED)
#   autotune_tuned_header(TARGET app CONFIG configs/x.yaml [ARCH sm_XY] [OUTPUT_DIR dir]
#                         [RESULTS x.csv ...] [SOURCES a.cu ...] [VARIANT_SOURCES k.cu ...]
#                         [REQUIRE_COMPLETE])
#
# The target's CUDA sources (or only SOURCES, where the target holds kernels of other configs)
# are compiled with the winner's recipe: its nvcc flags (every -D, build.flags, the register cap)
# and the include directories its kernel needs; a config with build.rdc makes the target
# separable (-rdc=true, linked with the device runtime). A source that includes NAME_tuned.h and
# then `#include NAME_KERNEL_SOURCE` compiles the tuned kernel, also one with `#pragma unroll
# PARAM` (the header's directory holds the copy with the winner's factors written in). Once
# built, the target is checked (`autotune check`, AutotuneCheck.cmake): a target that does not hold
# each winner's code as tuned (a flag lost, a separable target's relocatable code) gets a warning
# naming what differs.
#
# VARIANT_SOURCES: a config with instances may have winners that differ in compile-time values,
# each a variant of its own build (NAME_VARIANTS, docs/build.md). These files hold the kernel and
# are compiled once per variant, each with that variant's recipe (-DNAME_VARIANT=K, its own
# entry name, its register cap ...), and linked into the target; the target's own sources then
# get the recipe only where SOURCES names them (variant 0's). How many variants there are is
# known only once tuned, at build time, while CMake fixes its targets at configure time: so the
# build has one slot per instance of the config (`autotune validate --print-instances`; one for
# a config without instances), as no header has more variants than instances. Slot K is an
# object library, TARGET_NAME_vK, compiling a wrapper of each file (in OUTPUT_DIR/NAME.vK/, so
# their base names must differ) that includes it where the header has a variant K (its options
# file, NAME.vK.nvcc-flags, then defines AUTOTUNE_VARIANT_SLOT=K) and is empty otherwise: a
# slot beyond the tuned variants builds an object with nothing in it, and links harmlessly.
# A header with more variants than slots (results of a config that had more instances) is
# refused at build time: configure again. The slots take the target's include directories,
# compile definitions and options, and at the end of the directory its CUDA_ARCHITECTURES,
# CUDA_STANDARD, compile features, CUDA_SEPARABLE_COMPILATION and POSITION_INDEPENDENT_CODE.
#
# Installed in PREFIX/lib/cmake/autotune/ (autotune is PREFIX/bin/autotune), or used from a source
# checkout with find_package(Autotune CONFIG PATHS <checkout>/cmake) after `make` there.
# -DAUTOTUNE_EXECUTABLE=/path/to/autotune overrides either. CONFIG and RESULTS are relative to the
# current source directory, OUTPUT_DIR (default: autotune) to the current binary directory; ARCH
# is autotune's --arch when it tunes. A header of an incomplete run (interrupted, stopped, or a
# search under a budget: NAME_COMPLETE 0) is warned about; REQUIRE_COMPLETE makes it an error.

# 3.20: DEPFILE in add_custom_command for the Makefile generators too. find_package gives this
# file its own policy scope, and the function keeps these policies wherever it is called from.
cmake_policy(VERSION 3.20...3.28)

if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../tuner/main.c")
  get_filename_component(_autotune_bin_dir "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE) # a checkout
else()
  get_filename_component(_autotune_bin_dir "${CMAKE_CURRENT_LIST_DIR}/../../../bin" ABSOLUTE)
endif()
find_program(AUTOTUNE_EXECUTABLE autotune PATHS "${_autotune_bin_dir}" NO_DEFAULT_PATH
  DOC "the autotune executable")
if(NOT EXISTS "${AUTOTUNE_EXECUTABLE}") # also a -DAUTOTUNE_EXECUTABLE= that names nothing
  set(Autotune_FOUND FALSE)
  set(Autotune_NOT_FOUND_MESSAGE "no autotune in ${_autotune_bin_dir} (AUTOTUNE_EXECUTABLE: \
'${AUTOTUNE_EXECUTABLE}'): build it with make, or give -DAUTOTUNE_EXECUTABLE=/path/to/autotune")
  return()
endif()
# Autotune::select: the run-time selection library (autotune_select.h), installed beside this
# file (PREFIX/lib, PREFIX/include) or built in a checkout (build/, runtime/).
if(NOT TARGET Autotune::select)
  find_library(AUTOTUNE_SELECT_LIBRARY NAMES libautotune_select.a autotune_select
    PATHS "${CMAKE_CURRENT_LIST_DIR}/../.." "${CMAKE_CURRENT_LIST_DIR}/../build" NO_DEFAULT_PATH)
  find_path(AUTOTUNE_SELECT_INCLUDE_DIR autotune_select.h
    PATHS "${CMAKE_CURRENT_LIST_DIR}/../../../include" "${CMAKE_CURRENT_LIST_DIR}/../runtime" NO_DEFAULT_PATH)
  if(AUTOTUNE_SELECT_LIBRARY AND AUTOTUNE_SELECT_INCLUDE_DIR)
    add_library(Autotune::select UNKNOWN IMPORTED)
    # the static library reads T4 files with libyaml, which a program links after it
    set_target_properties(Autotune::select PROPERTIES IMPORTED_LOCATION "${AUTOTUNE_SELECT_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${AUTOTUNE_SELECT_INCLUDE_DIR}" INTERFACE_LINK_LIBRARIES yaml)
  endif()
endif()
unset(_autotune_bin_dir)
set(_AUTOTUNE_FINISH "${CMAKE_CURRENT_LIST_DIR}/AutotuneFinish.cmake")
set(_AUTOTUNE_CHECK "${CMAKE_CURRENT_LIST_DIR}/AutotuneCheck.cmake")

# The value of KEY in the config's top-level mapping SECTION (SECTION "": KEY at the top level),
# in block style (`kernel:` then `  source: x`) or flow style (`kernel: {source: x}`); a flow
# list (`[a, b]`) as written; "" when absent. A line reader for the few plain keys needed here,
# not a YAML parser.
function(_autotune_yaml_value file section key out)
  file(READ "${file}" text)
  string(REPLACE ";" "\\;" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(inside FALSE)
  set(value "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "\r$" "" line "${line}")
    if(section STREQUAL "")
      if(line MATCHES "^${key}:[ \t]*(.*)$")
        set(value "${CMAKE_MATCH_1}")
        break()
      endif()
    elseif(line MATCHES "^${section}:[ \t]*{(.*)$")
      if(CMAKE_MATCH_1 MATCHES "(^|[ ,])${key}:[ \t]*(\\[[^]]*\\]|[^,}]*)")
        set(value "${CMAKE_MATCH_2}")
      endif()
      break()
    elseif(line MATCHES "^[^ \t#]") # a top-level key: the section begins or ends here
      if(inside)
        break()
      endif()
      if(line MATCHES "^${section}:")
        set(inside TRUE)
      endif()
    elseif(inside AND line MATCHES "^[ \t]+${key}:[ \t]*(.*)$")
      set(value "${CMAKE_MATCH_1}")
      break()
    endif()
  endforeach()
  string(REGEX REPLACE "(^|[ \t]+)#.*$" "" value "${value}")
  string(STRIP "${value}" value)
  string(REGEX REPLACE "^\"(.*)\"$" "\\1" value "${value}")
  string(REGEX REPLACE "^'(.*)'$" "\\1" value "${value}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# How many variant slots a build of CONFIG has: one per instance, as autotune counts them.
function(_autotune_slot_count config out)
  execute_process(COMMAND "${AUTOTUNE_EXECUTABLE}" validate --print-instances "${config}" RESULT_VARIABLE rc
    OUTPUT_VARIABLE problems ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "autotune_tuned_header: cannot count the instances of ${config} (${AUTOTUNE_EXECUTABLE} "
      "validate --print-instances, exit ${rc}): ${err}")
  endif()
  string(REGEX MATCHALL "[^\n]+" problems "${problems}")
  list(LENGTH problems n)
  if(n EQUAL 0)
    set(n 1) # no instances: one problem, one variant
  endif()
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# Slot K of VARIANT_SOURCES (see above): an object library of wrappers, each including its file
# where the options file the build writes defines AUTOTUNE_VARIANT_SLOT, linked into the target.
function(_autotune_variant_slots target name dir header step nslots)
  set(files "")
  set(bases "")
  foreach(src IN LISTS ARGN)
    get_filename_component(src "${src}" ABSOLUTE)
    get_filename_component(base "${src}" NAME)
    if(base IN_LIST bases)
      message(FATAL_ERROR "autotune_tuned_header(TARGET ${target}): VARIANT_SOURCES has two files named ${base}: "
        "each slot holds a copy of every file by its name")
    endif()
    list(APPEND bases "${base}")
    list(APPEND files "${src}")
  endforeach()
  set(slots "")
  math(EXPR last "${nslots} - 1")
  foreach(k RANGE ${last})
    set(opts "${dir}/${name}.v${k}.nvcc-flags")
    set(wrappers "")
    foreach(src IN LISTS files)
      get_filename_component(base "${src}" NAME)
      # written only when it changes: the slot's objects compile again for a new header, not a configure
      file(CONFIGURE OUTPUT "${dir}/${name}.v${k}/${base}" @ONLY CONTENT "\
/* ${name}'s variant slot ${k} (autotune_tuned_header's VARIANT_SOURCES): ${base} with variant ${k}'s
 * recipe, ${name}.v${k}.nvcc-flags, where the tuned header has a variant ${k}; else nothing. */
#ifdef AUTOTUNE_VARIANT_SLOT
#include \"${src}\"
#endif
")
      list(APPEND wrappers "${dir}/${name}.v${k}/${base}")
    endforeach()
    set(slot "${target}_${name}_v${k}")
    add_library(${slot} OBJECT ${wrappers})
    add_dependencies(${slot} ${step})
    target_include_directories(${slot} PRIVATE "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
    target_compile_definitions(${slot} PRIVATE "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
    target_compile_options(${slot} PRIVATE "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>"
      "$<$<COMPILE_LANGUAGE:CUDA>:--options-file=${opts}>")
    set_property(SOURCE ${wrappers} APPEND PROPERTY OBJECT_DEPENDS "${header}" "${opts}" ${files})
    target_link_libraries(${target} PRIVATE ${slot})
    list(APPEND slots ${slot})
  endforeach()
  set_property(TARGET ${target} APPEND PROPERTY AUTOTUNE_VARIANT_TARGETS ${slots})
  # the target's own settings as they stand once its directory is read, wherever they are set
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _autotune_slot_properties [[${target}]] ${slots})")
endfunction()

function(_autotune_slot_properties target)
  foreach(prop CUDA_ARCHITECTURES CUDA_STANDARD CUDA_STANDARD_REQUIRED CUDA_EXTENSIONS COMPILE_FEATURES
      CUDA_SEPARABLE_COMPILATION POSITION_INDEPENDENT_CODE)
    get_target_property(value ${target} ${prop})
    if(NOT value STREQUAL "value-NOTFOUND")
      set_property(TARGET ${ARGN} PROPERTY ${prop} ${value})
    endif()
  endforeach()
endfunction()

function(autotune_tuned_header)
  cmake_parse_arguments(PARSE_ARGV 0 AT "REQUIRE_COMPLETE" "TARGET;CONFIG;ARCH;OUTPUT_DIR"
    "RESULTS;SOURCES;VARIANT_SOURCES")
  if(AT_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "autotune_tuned_header: unknown arguments: ${AT_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET "${AT_TARGET}")
    message(FATAL_ERROR "autotune_tuned_header: TARGET '${AT_TARGET}' is not a target")
  endif()
  if("${AT_CONFIG}" STREQUAL "")
    message(FATAL_ERROR "autotune_tuned_header(TARGET ${AT_TARGET}): no CONFIG given")
  endif()
  get_filename_component(config "${AT_CONFIG}" ABSOLUTE)
  if(NOT EXISTS "${config}" OR IS_DIRECTORY "${config}")
    message(FATAL_ERROR "autotune_tuned_header: config ${config} does not exist")
  endif()
  if(NOT AT_OUTPUT_DIR)
    set(AT_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/autotune")
  endif()
  get_filename_component(dir "${AT_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  file(MAKE_DIRECTORY "${dir}")

  # As autotune reads them: the name defaults to the file name without its extension, and the
  # kernel source is relative to the config. Read here, so an edited config configures again.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${config}")
  _autotune_yaml_value("${config}" "" name name)
  if(name STREQUAL "")
    get_filename_component(name "${config}" NAME_WLE)
  endif()
  _autotune_yaml_value("${config}" kernel source source)
  if(source STREQUAL "")
    message(FATAL_ERROR "autotune_tuned_header: ${config} has no kernel source (kernel: source:)")
  endif()
  get_filename_component(config_dir "${config}" DIRECTORY)
  get_filename_component(kernel "${source}" ABSOLUTE BASE_DIR "${config_dir}")
  if(NOT EXISTS "${kernel}")
    message(FATAL_ERROR "autotune_tuned_header: ${config}: kernel source ${kernel} does not exist")
  endif()
  # nvcc -MM needs the kernel's include directories: build.include when written as [a, b].
  _autotune_yaml_value("${config}" build include list)
  string(REGEX REPLACE "^\\[(.*)\\]$" "\\1" list "${list}")
  string(REPLACE "," ";" list "${list}")
  set(includes "")
  foreach(inc IN LISTS list)
    string(STRIP "${inc}" inc)
    string(REGEX REPLACE "^\"(.*)\"$" "\\1" inc "${inc}")
    string(REGEX REPLACE "^'(.*)'$" "\\1" inc "${inc}")
    if(NOT inc STREQUAL "")
      get_filename_component(inc "${inc}" ABSOLUTE BASE_DIR "${config_dir}")
      list(APPEND includes "-I${inc}")
    endif()
  endforeach()
  list(JOIN includes "$<SEMICOLON>" includes) # one argument on the command line below

  set(header "${dir}/${name}_tuned.h")
  set(flags "${dir}/${name}.nvcc-flags")
  # nvcc -MM lists what the kernel includes (AutotuneFinish.cmake): a change there re-tunes too.
  if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA")
    set(nvcc "${CMAKE_CUDA_COMPILER}")
  else()
    find_program(AUTOTUNE_NVCC nvcc HINTS "$ENV{CUDA_HOME}/bin" /usr/local/cuda/bin
      DOC "the nvcc that lists a tuned kernel's includes")
    set(nvcc "${AUTOTUNE_NVCC}")
  endif()

  if(AT_RESULTS)
    # From recorded results (CI without a GPU): no tuning, the header from the CSVs.
    set(csvs "")
    foreach(csv IN LISTS AT_RESULTS)
      get_filename_component(csv "${csv}" ABSOLUTE)
      list(APPEND csvs "${csv}")
    endforeach()
    set(tune "")
    set(depends ${csvs})
    set(stale_check "-DAUTOTUNE=${AUTOTUNE_EXECUTABLE}" "-DCONFIG=${config}")
    string(JOIN " " comment "autotune: ${name}_tuned.h from" ${csvs})
  else()
    # autotune writes its results under its working directory, OUTPUT_DIR (results/NAME.csv
    # unless the config's output.csv says otherwise); `autotune header` then puts NAME_tuned.h
    # and NAME.mk in OUTPUT_DIR whatever the config's output.header.
    _autotune_yaml_value("${config}" output csv csvs)
    if(csvs STREQUAL "")
      set(csvs "results/${name}.csv")
    endif()
    set(tune COMMAND "${AUTOTUNE_EXECUTABLE}")
    if(AT_ARCH)
      list(APPEND tune --arch "${AT_ARCH}")
    endif()
    list(APPEND tune "${config}")
    set(depends "")
    set(stale_check "")
    set(comment "autotune: tuning ${config}")
  endif()

  set(slot_flags "")
  set(slot_args "")
  if(AT_VARIANT_SOURCES)
    _autotune_slot_count("${config}" nslots)
    math(EXPR last "${nslots} - 1")
    foreach(k RANGE ${last})
      list(APPEND slot_flags "${dir}/${name}.v${k}.nvcc-flags")
    endforeach()
    set(slot_args "-DSLOTS=${nslots}" "-DSLOT_FLAGS=${dir}/${name}")
  endif()

  add_custom_command(
    OUTPUT "${header}" "${dir}/${name}.mk" "${flags}" ${slot_flags}
    ${tune}
    COMMAND "${AUTOTUNE_EXECUTABLE}" header ${csvs} -o "${header}"
    COMMAND "${CMAKE_COMMAND}" "-DMK=${dir}/${name}.mk" "-DFLAGS=${flags}" "-DNVCC=${nvcc}"
      "-DKERNEL=${kernel}" "-DINCLUDES=${includes}" "-DHEADER=${header}"
      "-DARCHS=$<TARGET_PROPERTY:${AT_TARGET},CUDA_ARCHITECTURES>"
      "-DDEPFILE=${dir}/${name}.d" "-DREQUIRE_COMPLETE=${AT_REQUIRE_COMPLETE}" ${stale_check} ${slot_args}
      -P "${_AUTOTUNE_FINISH}"
    DEPENDS "${config}" "${kernel}" ${depends}
    DEPFILE "${dir}/${name}.d"
    WORKING_DIRECTORY "${dir}"
    COMMENT "${comment}"
    USES_TERMINAL # tuning takes minutes: Ninja shows its progress line rather than holding it back
    VERBATIM)

  # As a source of the target, the header is generated before the target compiles. The CUDA
  # sources recompile when it or the flags change, also those that do not include it. The
  # kernel's directory comes after the target's own: `#include NAME_KERNEL_SOURCE` finds it.
  target_sources(${AT_TARGET} PRIVATE "${header}")
  get_filename_component(kernel_dir "${kernel}" DIRECTORY)
  target_include_directories(${AT_TARGET} PRIVATE "${dir}" "${kernel_dir}")
  _autotune_yaml_value("${config}" build rdc rdc)
  if(rdc MATCHES "^(true|True|TRUE|yes|on|1)$")
    # the tuned binary was relocatable device code linked with the device runtime
    set_target_properties(${AT_TARGET} PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
  endif()
  if(AT_VARIANT_SOURCES)
    # one target runs the step for the target and its slots, so that no two of them run it at once
    set(step "${AT_TARGET}_${name}_autotune")
    add_custom_target(${step} DEPENDS "${header}" "${flags}" ${slot_flags})
    add_dependencies(${AT_TARGET} ${step})
    _autotune_variant_slots(${AT_TARGET} "${name}" "${dir}" "${header}" ${step} ${nslots} ${AT_VARIANT_SOURCES})
  endif()
  if(AT_SOURCES)
    set(sources "")
    foreach(src IN LISTS AT_SOURCES)
      get_filename_component(src "${src}" ABSOLUTE)
      list(APPEND sources "${src}")
    endforeach()
    set_property(SOURCE ${sources} TARGET_DIRECTORY ${AT_TARGET} APPEND PROPERTY COMPILE_OPTIONS
      "--options-file=${flags}")
  else()
    if(NOT AT_VARIANT_SOURCES) # else the kernel is built by the slots alone
      target_compile_options(${AT_TARGET} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--options-file=${flags}>")
    endif()
    get_target_property(sources ${AT_TARGET} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cu$")
  endif()
  if(sources)
    set_property(SOURCE ${sources} TARGET_DIRECTORY ${AT_TARGET} APPEND PROPERTY OBJECT_DEPENDS
      "${header}" "${flags}")
  endif()
  # Once built, the target must hold each winner's code as tuned (AutotuneCheck.cmake). An
  # object library has no file of its own to check.
  get_target_property(type ${AT_TARGET} TYPE)
  if(type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY|STATIC_LIBRARY)$")
    set(check_csvs "")
    foreach(csv IN LISTS csvs)
      get_filename_component(csv "${csv}" ABSOLUTE BASE_DIR "${dir}")
      list(APPEND check_csvs "${csv}")
    endforeach()
    list(JOIN check_csvs "$<SEMICOLON>" check_csvs)
    add_custom_command(TARGET ${AT_TARGET} POST_BUILD
      COMMAND "${CMAKE_COMMAND}" "-DAUTOTUNE=${AUTOTUNE_EXECUTABLE}" "-DBINARY=$<TARGET_FILE:${AT_TARGET}>"
        "-DRESULTS=${check_csvs}" -P "${_AUTOTUNE_CHECK}"
      VERBATIM)
  endif()
endfunction()
