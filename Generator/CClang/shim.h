// libclang's C API, for its types only: secgen loads the library itself with dlopen (LibClang.swift),
// so there is no link-time dependency and a missing libclang is reported in words.
#include <clang-c/Index.h>
