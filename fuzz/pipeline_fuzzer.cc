// libFuzzer harness: the default `verify` pipeline end to end on a .drb program (refinement on;
// --threads 2, or 2.. for a symmetric program on every other input; --deadlock on every fourth;
// a certificate written), each run bounded to half a second and solver queries to 200 ms, and
// `check` on the certificate of every `safe`. Any exception but InputError (which the command
// line would report as an internal error, exit 6), any crash and any sanitizer report is a
// finding. The input and the certificate are
// files in a temporary directory the harness makes (and removes at exit).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "drb/parser.h"
#include "front/drb.h"
#include "fuzz/input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // the pipeline's time goes to the solver, not to the reader
  std::cout.setstate(std::ios::badbit);  // the reports are not wanted
  const std::string model = druba::fuzz::WriteInput("p.drb", data, size);
  const std::string certificate = model + ".cert.json";
  std::filesystem::remove(certificate);
  druba::run::RunOptions options;
  options.model = model;
  try {
    const druba::drb::Program program = druba::drb::ParseProgram(
        std::string_view(reinterpret_cast<const char*>(data), size), model);
    if (program.NumThreads() == 0 || program.NumThreads() > 4) return 0;
    const bool every = size % 2 == 1 && program.templates.size() == 1 && program.symmetric;
    druba::front::DrbFrontEnd drb;
    drb.options().threads = every ? "2.." : "";
    drb.options().max_threads = 3;
    drb.options().solver_timeout_ms = 200;
    options.deadlock = !every && size % 4 == 0;
    options.time_limit_s = 0.5;
    options.certificate = certificate;
    // Any exception but InputError escapes to libFuzzer: an internal error is a finding.
    const druba::run::Outcome outcome = drb.Run(options, {});
    druba::run::WriteOutputFiles(*outcome.report);
    if (outcome.report->verdict == druba::Verdict::kSafe && std::filesystem::exists(certificate)) {
      options.command = druba::run::Command::kCheck;
      drb.Run(options, {});
    }
  } catch (const druba::InputError&) {
  }
  return 0;
}
