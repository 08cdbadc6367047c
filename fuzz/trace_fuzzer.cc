// libFuzzer harness: `druba replay` of a trace file against a bundled model, the JSON reader and
// every check of the replay included. The input is written to a file in a temporary directory the
// harness makes (and removes at exit); the model alternates between a CPDS and a .drb one by the
// input's first byte. Any exception but InputError, any crash and any sanitizer report is a
// finding; the report on stdout is discarded by libFuzzer's -close_fd_mask=1 in scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/diagnostics.h"
#include "front/cpds.h"
#include "front/drb.h"
#include "fuzz/input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string trace = druba::fuzz::WriteInput("trace.json", data, size);
  druba::run::RunOptions options;
  options.command = druba::run::Command::kReplay;
  options.replay_trace = trace;
  const bool drb = size > 0 && (data[0] & 1) != 0;
  options.model = drb ? DRUBA_SOURCE_DIR "/models/lock-broken.drb"
                      : DRUBA_SOURCE_DIR "/models/recursive-bug.pds";
  druba::front::CpdsFrontEnd cpds;
  if (!drb) cpds.options().spec = DRUBA_SOURCE_DIR "/models/recursive-bug.spec";
  try {
    if (drb) {
      druba::front::DrbFrontEnd().Run(options, {});
    } else {
      cpds.Run(options, {});
    }
  } catch (const druba::InputError&) {
  }
  return 0;
}
