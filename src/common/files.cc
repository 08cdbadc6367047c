#include "common/files.h"

#include <filesystem>
#include <fstream>

#include "common/diagnostics.h"

namespace druba {

void WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out || !(out << text).flush()) throw InputError({path, 0, 0}, "cannot write the file");
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) throw InputError({path, 0, 0}, "cannot write the file: " + error.message());
}

}  // namespace druba
