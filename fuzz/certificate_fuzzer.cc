// libFuzzer harness: `druba check` of a CPDS certificate against a bundled model (ex8.pds), the
// JSON reader and every check included. The input is written to a file in a temporary directory
// the harness makes (and removes at exit). Any exception but InputError, any crash and any
// sanitizer report is a finding. (.drb certificates are left out: their predicates are solver
// queries, whose time a fuzzer cannot bound.)
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cpds_command.h"
#include "common/diagnostics.h"

namespace {

struct TempDir {
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "druba-fuzz-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    path = templ;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::filesystem::path path;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const TempDir dir;
  const std::string certificate = (dir.path / "certificate.json").string();
  {
    std::ofstream out(certificate, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  druba::run::RunOptions options;
  options.command = "check";
  options.certificate = certificate;
  options.model = DRUBA_SOURCE_DIR "/models/ex8.pds";
  try {
    druba::cli::RunCpds(options, nullptr);
  } catch (const druba::InputError&) {
  }
  return 0;
}
