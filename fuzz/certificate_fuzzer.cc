// libFuzzer harness: `druba check` of a certificate against a bundled model, the JSON reader and
// every check included: a CPDS certificate against ex8.pds, and one whose kind is "drb explicit"
// against burns.drb (the checker's interpreter). The input is written to a file in a temporary
// directory the harness makes (and removes at exit). Any exception but InputError, any crash and
// any sanitizer report is a finding. (.drb certificates of the predicates kind are left out:
// their predicates are solver queries, whose time a fuzzer cannot bound.)
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/diagnostics.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "front/cpds.h"
#include "front/drb.h"
#include "fuzz/input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string certificate = druba::fuzz::WriteInput("certificate.json", data, size);
  druba::run::RunOptions options;
  options.command = druba::run::Command::kCheck;
  options.certificate = certificate;
  options.model = DRUBA_SOURCE_DIR "/models/ex8.pds";
  try {
    druba::front::CpdsFrontEnd().Run(options, {});
  } catch (const druba::InputError&) {
  }
  try {  // only the explicit kind: it asks no solver
    const druba::JsonValue doc = druba::ParseJson(druba::ReadFile(certificate), certificate);
    if (doc.Has("kind") && doc.At("kind").kind == druba::JsonValue::Kind::kString &&
        doc.At("kind").text == "drb explicit") {
      options.model = DRUBA_SOURCE_DIR "/models/burns.drb";
      druba::front::DrbFrontEnd().Run(options, {});
    }
  } catch (const druba::InputError&) {
  }
  return 0;
}
