# ctest "layer_includes" (CMakeLists.txt): the core maths, the kernels and the public headers
# include no JSON library, no zip library and no stream I/O. cmake -DROOT=<repo> -P this file.
file(GLOB_RECURSE files
  ${ROOT}/cpp/src/core/*.cpp ${ROOT}/cpp/src/core/*.hpp
  ${ROOT}/cpp/src/kernels/*.cpp ${ROOT}/cpp/src/kernels/*.hpp
  ${ROOT}/cpp/include/attn/*.hpp)
set(bad 0)
foreach(f ${files})
  file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](nlohmann/|zip\\.h|fstream|iostream)")
  foreach(l ${lines})
    file(RELATIVE_PATH rel ${ROOT} ${f})
    message(SEND_ERROR "${rel}: ${l} (core, kernels and public headers: no JSON, no zip, no I/O)")
    set(bad 1)
  endforeach()
endforeach()
list(LENGTH files n)
if(bad)
  message(FATAL_ERROR "layer check failed")
endif()
message(STATUS "layer check: ${n} files, no JSON, zip or stream include")
