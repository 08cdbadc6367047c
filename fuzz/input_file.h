// For the harnesses whose code under test reads a file: the input is written to `name` in a
// temporary directory made once (and removed at exit), never to a fixed or system path.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace druba::fuzz {

// Returns the file's path.
inline std::string WriteInput(const char* name, const std::uint8_t* data, std::size_t size) {
  struct TempDir {
    TempDir() {
      std::string templ = (std::filesystem::temp_directory_path() / "druba-fuzz-XXXXXX").string();
      if (::mkdtemp(templ.data()) == nullptr) std::abort();
      path = templ;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::filesystem::path path;
  };
  static const TempDir dir;
  const std::string file = (dir.path / name).string();
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return file;
}

}  // namespace druba::fuzz
