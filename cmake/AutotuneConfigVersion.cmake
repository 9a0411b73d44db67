# AutotuneConfigVersion.cmake: which find_package(Autotune VERSION) requests this autotune meets.
# The version is autotune --version's (tests/install.sh compares them). Compatible: not older
# than asked, and of the same major version; in 0.x of the same minor, which may change the
# interface. A range (find_package(Autotune 0.1...0.3)) is taken as written.
set(PACKAGE_VERSION "0.1.0")

set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(PACKAGE_FIND_VERSION_RANGE)
  if(PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION_MIN AND
     (PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MAX OR
      (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE" AND
       PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION_MAX)))
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
elseif(PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION)
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${PACKAGE_VERSION}")
  if(CMAKE_MATCH_1 EQUAL PACKAGE_FIND_VERSION_MAJOR AND
     (CMAKE_MATCH_1 GREATER 0 OR CMAKE_MATCH_2 EQUAL PACKAGE_FIND_VERSION_MINOR))
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
endif()
if(PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
