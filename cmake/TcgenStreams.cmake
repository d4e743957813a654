# tcgen_bidirectional_streams(SOURCES_VAR HEADERS_VAR
#     SPECS spec.tcg... NAMESPACE ns HEADER_DIR dir)
#
# Runs tcgen (the built one, or TCGEN_GENERATOR) at build time on each spec,
# writing HEADER_DIR/STEM.hpp (--emit=bidirectional-header) and STEM.cpp beside it
# (--emit=bidirectional-source), where STEM is the spec's file name without
# .tcg; sets SOURCES_VAR and HEADERS_VAR to the generated files, for a
# library target to compile. They are regenerated when the spec or tcgen
# changes.
function(tcgen_bidirectional_streams sources_var headers_var)
  cmake_parse_arguments(ARG "" "NAMESPACE;HEADER_DIR" "SPECS" ${ARGN})
  tcgen_generator_program(tcgen_program tcgen_bidirectional_streams)
  set(sources)
  set(headers)
  foreach(spec IN LISTS ARG_SPECS)
    get_filename_component(stem ${spec} NAME_WE)
    set(header ${ARG_HEADER_DIR}/${stem}.hpp)
    set(source ${ARG_HEADER_DIR}/${stem}.cpp)
    add_custom_command(
      OUTPUT ${header} ${source}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${ARG_HEADER_DIR}
      COMMAND ${tcgen_program} --emit=bidirectional-header --namespace=${ARG_NAMESPACE} -o ${header} ${spec}
      COMMAND ${tcgen_program} --emit=bidirectional-source --namespace=${ARG_NAMESPACE} -o ${source} ${spec}
      DEPENDS ${tcgen_program} ${spec}
      COMMENT "tcgen: bidirectional stream of ${stem}"
      VERBATIM)
    list(APPEND sources ${source})
    list(APPEND headers ${header})
  endforeach()
  set(${sources_var} ${sources} PARENT_SCOPE)
  set(${headers_var} ${headers} PARENT_SCOPE)
endfunction()
