# AutotuneConfig.cmake: find_package(Autotune CONFIG) support. Provides AUTOTUNE_EXECUTABLE and
# autotune_tuned_header(), which builds a target against a kernel's tuned header:
#
#   find_package(Autotune 0.1 CONFIG REQUIRED)
#   autotune_tuned_header(TARGET app CONFIG configs/x.yaml [ARCH sm_XY] [OUTPUT_DIR dir]
#                         [RESULTS x.csv ...] [SOURCES a.cu ...] [REQUIRE_COMPLETE])
#
# The target's CUDA sources (or only SOURCES, where the target holds kernels of other configs)
# are compiled with the winner's recipe: its nvcc flags (every -D, build.flags, the register cap)
# and the include directories its kernel needs; a config with build.rdc makes the target
# separable (-rdc=true, linked with the device runtime). A source that includes NAME_tuned.h and
# then `#include NAME_KERNEL_SOURCE` compiles the tuned kernel, also one with `#pragma unroll
# PARAM` (the header's directory holds the copy with the winner's factors written in).
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
    set_target_properties(Autotune::select PROPERTIES IMPORTED_LOCATION "${AUTOTUNE_SELECT_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${AUTOTUNE_SELECT_INCLUDE_DIR}")
  endif()
endif()
unset(_autotune_bin_dir)
set(_AUTOTUNE_FINISH "${CMAKE_CURRENT_LIST_DIR}/AutotuneFinish.cmake")

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

function(autotune_tuned_header)
  cmake_parse_arguments(PARSE_ARGV 0 AT "REQUIRE_COMPLETE" "TARGET;CONFIG;ARCH;OUTPUT_DIR" "RESULTS;SOURCES")
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

  add_custom_command(
    OUTPUT "${header}" "${dir}/${name}.mk" "${flags}"
    ${tune}
    COMMAND "${AUTOTUNE_EXECUTABLE}" header ${csvs} -o "${header}"
    COMMAND "${CMAKE_COMMAND}" "-DMK=${dir}/${name}.mk" "-DFLAGS=${flags}" "-DNVCC=${nvcc}"
      "-DKERNEL=${kernel}" "-DINCLUDES=${includes}" "-DHEADER=${header}"
      "-DARCHS=$<TARGET_PROPERTY:${AT_TARGET},CUDA_ARCHITECTURES>"
      "-DDEPFILE=${dir}/${name}.d" "-DREQUIRE_COMPLETE=${AT_REQUIRE_COMPLETE}" ${stale_check}
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
  if(AT_SOURCES)
    set(sources "")
    foreach(src IN LISTS AT_SOURCES)
      get_filename_component(src "${src}" ABSOLUTE)
      list(APPEND sources "${src}")
    endforeach()
    set_property(SOURCE ${sources} TARGET_DIRECTORY ${AT_TARGET} APPEND PROPERTY COMPILE_OPTIONS
      "--options-file=${flags}")
  else()
    target_compile_options(${AT_TARGET} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--options-file=${flags}>")
    get_target_property(sources ${AT_TARGET} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cu$")
  endif()
  if(sources)
    set_property(SOURCE ${sources} TARGET_DIRECTORY ${AT_TARGET} APPEND PROPERTY OBJECT_DEPENDS
      "${header}" "${flags}")
  endif()
endfunction()
