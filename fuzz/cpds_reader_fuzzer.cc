// libFuzzer harness: the CPDS readers (.pds, .init, a target) and, when all three parse, a few
// hundred successor calls of the model. The input is the three texts separated by NUL bytes.
// Any exception but InputError, any crash and any sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "cpds/model.h"
#include "cpds/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  std::size_t at = 0;
  while (parts.size() < 2) {
    const std::size_t nul = input.find('\0', at);
    if (nul == std::string_view::npos) break;
    parts.push_back(input.substr(at, nul - at));
    at = nul + 1;
  }
  parts.push_back(input.substr(at));
  try {
    druba::Warnings warnings;
    const druba::cpds::Cpds cpds = druba::cpds::ParsePds(parts[0], "fuzz.pds", &warnings);
    if (parts.size() < 2) return 0;
    const druba::cpds::InitialState init = druba::cpds::ParseInit(parts[1], "fuzz.init", cpds);
    if (parts.size() == 3) druba::cpds::ParseTarget(parts[2], "fuzz.spec", cpds);
    if (cpds.threads.size() > 8) return 0;
    druba::cpds::CpdsModel model(cpds, init);
    std::deque<std::vector<druba::Word>> queue;
    model.ForEachInitial([&](druba::StateView s) { queue.emplace_back(s.begin(), s.end()); });
    for (int calls = 0; calls < 300 && !queue.empty(); ++calls) {
      const std::vector<druba::Word> state = queue.front();
      queue.pop_front();
      const auto thread = static_cast<std::uint32_t>(calls % model.num_threads());
      model.ForEachSuccessor(druba::StateView(state), thread,
                             [&](std::uint32_t /*action*/, druba::StateView s) {
                               if (queue.size() < 1000) queue.emplace_back(s.begin(), s.end());
                             });
    }
  } catch (const druba::InputError&) {
  }
  return 0;
}
