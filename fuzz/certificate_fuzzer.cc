// libFuzzer harness: `druba check` of a CPDS certificate against a bundled model (ex8.pds), the
// JSON reader and every check included. The input is written to a file in a temporary directory
// the harness makes (and removes at exit). Any exception but InputError, any crash and any
// sanitizer report is a finding. (.drb certificates are left out: their predicates are solver
// queries, whose time a fuzzer cannot bound.)
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/cpds_command.h"
#include "common/diagnostics.h"
#include "fuzz/input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string certificate = druba::fuzz::WriteInput("certificate.json", data, size);
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
