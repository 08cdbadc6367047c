#include "c/libclang.h"

#include <dlfcn.h>

#include <string>

#include "common/diagnostics.h"

// The library druba was built against (CMake gives its path; a merged unit of scripts/tidy's
// may not).
#ifndef DRUBA_LIBCLANG_PATH
#define DRUBA_LIBCLANG_PATH "libclang.so"
#endif

namespace druba::c {

const LibClang& Clang() {
  static const LibClang loaded = [] {
    void* library = dlopen(DRUBA_LIBCLANG_PATH, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      throw InputError({"", 0, 0}, std::string("C programs need Clang's library (libclang-dev), "
                                               "which could not be loaded: ") +
                                       dlerror());
    }
    LibClang out;
    bool missing = false;
    // NOLINTNEXTLINE(cppcoreguidelines-macro-usage)
#define DRUBA_LIBCLANG_LOAD(name)                                               \
  out.name##_ = reinterpret_cast<decltype(out.name##_)>(dlsym(library, #name)); \
  missing = missing || out.name##_ == nullptr;
    DRUBA_LIBCLANG_FUNCTIONS(DRUBA_LIBCLANG_LOAD)
#undef DRUBA_LIBCLANG_LOAD
    if (missing) throw InputError({"", 0, 0}, "Clang's library lacks a function druba calls");
    return out;
  }();
  return loaded;
}

}  // namespace druba::c
