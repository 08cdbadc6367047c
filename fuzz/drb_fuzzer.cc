// libFuzzer harness: the .drb reader and, when a program parses with at most four threads, a
// bounded breadth-first run of its evaluator (a few hundred successor calls). Any exception but
// InputError and ValueOverflow (a value past the bound druba computes with), any crash, any
// sanitizer report and any input that runs past the timeout is a finding.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "drb/parser.h"
#include "interp/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const druba::drb::Program program = druba::drb::ParseProgram(text, "fuzz.drb");
    const std::uint32_t n = program.NumThreads();
    if (n == 0 || n > 4) return 0;
    druba::predabs::IntModel model(program, n);
    std::deque<std::vector<druba::Word>> queue;
    model.ForEachInitial([&](druba::StateView s) { queue.emplace_back(s.begin(), s.end()); });
    for (int calls = 0; calls < 300 && !queue.empty(); ++calls) {
      const std::vector<druba::Word> state = queue.front();
      queue.pop_front();
      model.ForEachSuccessor(druba::StateView(state), static_cast<std::uint32_t>(calls) % n,
                             [&](std::uint32_t /*action*/, druba::StateView s) {
                               if (queue.size() < 1000) queue.emplace_back(s.begin(), s.end());
                             });
    }
  } catch (const druba::InputError&) {
  } catch (const druba::predabs::ValueOverflow&) {  // a value past kMaxValueBits: expected
  }
  return 0;
}
