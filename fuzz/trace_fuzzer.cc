// libFuzzer harness: `druba replay` of a trace file against a bundled model, the JSON reader and
// every check of the replay included. The input is written to a file in a temporary directory the
// harness makes (and removes at exit); the model alternates between a CPDS and a .drb one by the
// input's first byte. Any exception but InputError, any crash and any sanitizer report is a
// finding; the report on stdout is discarded by libFuzzer's -close_fd_mask=1 in scripts/fuzz.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cpds_command.h"
#include "cli/drb_command.h"
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
  const std::string trace = (dir.path / "trace.json").string();
  {
    std::ofstream out(trace, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  druba::run::RunOptions options;
  options.command = "replay";
  options.replay_trace = trace;
  const bool drb = size > 0 && (data[0] & 1) != 0;
  options.model = drb ? DRUBA_SOURCE_DIR "/models/lock-broken.drb"
                      : DRUBA_SOURCE_DIR "/models/recursive-bug.pds";
  if (!drb) options.spec = DRUBA_SOURCE_DIR "/models/recursive-bug.spec";
  try {
    if (drb) {
      druba::cli::RunDrb(options, nullptr);
    } else {
      druba::cli::RunCpds(options, nullptr);
    }
  } catch (const druba::InputError&) {
  }
  return 0;
}
