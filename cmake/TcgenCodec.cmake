# tcgen_add_codec(TARGET SPEC spec.tcg [NAMESPACE ns] [HEADER name.hpp])
#
# Runs tcgen at build time (as protobuf_generate runs protoc) to write the
# in-process reader and writer of a trace format, `tcgen --emit=header`, and
# makes TARGET an INTERFACE library that a program links to include it:
#
#   tcgen_add_codec(champsim_codec SPEC champsim.tcg)
#   target_link_libraries(simulator PRIVATE champsim_codec)   # #include "champsim.hpp"
#
# HEADER defaults to the spec's file name with .hpp, NAMESPACE to the spec's
# file name. The header is regenerated when the spec or tcgen changes. The
# target brings C++17, threads (-pthread: the Reader reads ahead on a second
# thread) and the stream back-ends' libraries (TCGEN_BACKEND_LIBRARIES).
# tcgen is the build's own `tcgen` target, or the installed tcgen::tcgen
# (find_package(tcgen)).

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

# Makes INTERFACE library TARGET link the stream back-ends' LIBRARIES (names
# as -l takes them: TCGEN_BACKEND_LIBRARIES, which runtime/CMakeLists.txt
# reads from runtime/backends.txt and the installed tcgenConfig.cmake
# sets) and threads.
function(tcgen_link_backends target libraries)
  foreach(library IN LISTS libraries)
    find_library(TCGEN_BACKEND_LIBRARY_${library} ${library} REQUIRED)
    target_link_libraries(${target} INTERFACE ${TCGEN_BACKEND_LIBRARY_${library}})
  endforeach()
  target_link_libraries(${target} INTERFACE Threads::Threads)
endfunction()

# Sets OUT_VAR to the tcgen that runs at build time: TCGEN_GENERATOR when the
# build is given one, else the project's own target, else the installed
# package's. CALLER names the caller in the error.
function(tcgen_generator_program out_var caller)
  if(TCGEN_GENERATOR)
    set(${out_var} ${TCGEN_GENERATOR} PARENT_SCOPE)
  elseif(TARGET tcgen)
    set(${out_var} tcgen PARENT_SCOPE)
  elseif(TARGET tcgen::tcgen)
    set(${out_var} tcgen::tcgen PARENT_SCOPE)
  else()
    message(FATAL_ERROR "${caller}: no tcgen target; use find_package(tcgen)")
  endif()
endfunction()

function(tcgen_add_codec target)
  cmake_parse_arguments(ARG "" "SPEC;NAMESPACE;HEADER" "" ${ARGN})
  if(NOT ARG_SPEC)
    message(FATAL_ERROR "tcgen_add_codec(${target}): SPEC is required")
  endif()
  get_filename_component(spec ${ARG_SPEC} ABSOLUTE)
  get_filename_component(stem ${spec} NAME_WE)
  if(NOT ARG_HEADER)
    set(ARG_HEADER ${stem}.hpp)
  endif()
  if(NOT ARG_NAMESPACE)
    set(ARG_NAMESPACE ${stem})
  endif()
  tcgen_generator_program(tcgen_program "tcgen_add_codec(${target})")
  set(directory ${CMAKE_CURRENT_BINARY_DIR}/${target}_tcgen)
  set(header ${directory}/${ARG_HEADER})
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${directory}
    COMMAND ${tcgen_program} --emit=header --namespace=${ARG_NAMESPACE} -o ${header} ${spec}
    DEPENDS ${tcgen_program} ${spec}
    COMMENT "tcgen: in-process codec of ${stem}"
    VERBATIM)
  add_custom_target(${target}_header DEPENDS ${header})
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_header)
  target_include_directories(${target} INTERFACE ${directory})
  target_compile_features(${target} INTERFACE cxx_std_17)
  tcgen_link_backends(${target} "${TCGEN_BACKEND_LIBRARIES}")
endfunction()
