# Clang's C library (Debian: libclang-dev), as the imported target LibClang::LibClang. Clang's own
# CMake package drags in LLVM's, which wants the C language enabled; the C API needs only a header
# folder and one library.
find_path(LibClang_INCLUDE_DIR clang-c/Index.h
          HINTS /usr/lib/llvm-16/include /usr/lib/llvm-15/include /usr/lib/llvm-14/include)
find_library(LibClang_LIBRARY NAMES clang clang-16 clang-15 clang-14
             HINTS /usr/lib/llvm-16/lib /usr/lib/llvm-15/lib /usr/lib/llvm-14/lib)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibClang REQUIRED_VARS LibClang_LIBRARY LibClang_INCLUDE_DIR)
if(LibClang_FOUND AND NOT TARGET LibClang::LibClang)
  add_library(LibClang::LibClang UNKNOWN IMPORTED)
  set_target_properties(LibClang::LibClang PROPERTIES IMPORTED_LOCATION "${LibClang_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${LibClang_INCLUDE_DIR}")
endif()
