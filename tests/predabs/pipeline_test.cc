// The default pipeline end to end, as a user runs it: `druba verify` (refinement on, every count
// from 2 on half the runs, else one count and on half of those --deadlock, a certificate written)
// on random programs whose expressions and predicates can fail to evaluate (division by variables,
// indices out of range), each run bounded in time; then `druba check` on every certificate. No run
// may end by a signal or an internal error, and every verdict must agree with breadth-first search
// over every interleaving. The binary is DRUBA_BIN (set by CTest); the programs live in a temporary
// directory the test makes and removes.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "interp/model.h"
#include "interp/program.h"
#include "support/random_drb.h"
#include "support/sweep.h"

namespace druba::predabs {
namespace {

// The exit code of a shell command line; 128 + N when a signal N ended it.
int Exit(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

// Whether some interleaving of `n` threads reaches a failed thread (or, with `deadlock`, a
// deadlock).
bool Violated(const Program& program, std::uint32_t n, bool deadlock) {
  IntModel model(program, n);
  return BreadthFirst(model,
                      [&](const std::vector<Word>& s, std::size_t /*depth*/) {
                        return model.AnyThreadFailed(StateView(s)) ||
                               (deadlock && model.Deadlocked(StateView(s)));
                      })
      .has_value();
}

class TempDir {
 public:
  TempDir() {
    std::string name = (std::filesystem::temp_directory_path() / "druba-pipeline-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) std::abort();
    path_ = name;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& file) const { return (path_ / file).string(); }

 private:
  std::filesystem::path path_;
};

TEST(PipelineTest, DefaultPipelineNeverAbortsAndAgreesWithBruteForce) {
  const char* druba = std::getenv("DRUBA_BIN");
  if (druba == nullptr) GTEST_SKIP() << "DRUBA_BIN is not set (CTest sets it)";
  const TempDir dir;
  const std::string model = dir / "p.drb";
  const std::string cert = dir / "p.cert.json";
  const std::string out = dir / "out.txt";
  const int programs = testing::Sweep(std::getenv("DRUBA_PIPELINE_PROGRAMS") != nullptr
                                          ? std::atoi(std::getenv("DRUBA_PIPELINE_PROGRAMS"))
                                          : 24);
  const auto seed = static_cast<std::uint32_t>(std::getenv("DRUBA_PIPELINE_SEED") != nullptr
                                                   ? std::atoi(std::getenv("DRUBA_PIPELINE_SEED"))
                                                   : 2811);
  Generator gen(seed, /*division=*/true);
  int counts[3] = {0, 0, 0};  // safe, violation, unknown
  int checked_valid = 0;
  int every_runs = 0;  // with --threads 2..
  for (int round = 0; round < programs; ++round) {
    gen.SetStructured(round % 3 == 1);
    std::string text = gen.Program(2, 3 + round % 2, round % 4 != 3, 1 + round % 2, true);
    if (round % 2 == 0) text = text.substr(0, text.find("abstraction a {"));  // refinement's own
    const Program program = ParseProgram(text, "p.drb");
    // --threads 2.. for three in four symmetric programs (two thirds are: half of all runs);
    // an asymmetric program is refused it.
    const bool every = round % 4 != 0 && program.symmetric;
    const bool deadlock = !every && round % 2 == 0;
    every_runs += every ? 1 : 0;
    std::ofstream(model) << text;
    std::filesystem::remove(cert);
    const std::string options =
        std::string(every ? " --threads 2.. --max-threads 3" : " --threads 2") +
        (deadlock ? " --deadlock" : "");
    const int code =
        Exit("timeout -s KILL 120 '" + std::string(druba) + "' verify '" + model + "'" + options +
             " --time-limit 30 --certificate '" + cert + "' > '" + out + "' 2>&1");
    std::string report;
    {
      std::ifstream in(out);
      report.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_TRUE(code == 0 || code == 5 || code == 10)
        << "exit " << code << " (program " << round << ", options" << options << ")\n"
        << text << "\n"
        << report;
    bool violated = false;
    for (std::uint32_t n = 2; n <= (every ? 3U : 2U); ++n)
      violated = violated || Violated(program, n, deadlock);
    if (code == 0) {
      EXPECT_FALSE(violated) << "safe, but an interleaving violates it\n" << text << report;
      if (std::filesystem::exists(cert)) {
        const int check = Exit("timeout -s KILL 120 '" + std::string(druba) + "' check '" + model +
                               "' --certificate '" + cert + "' > '" + out + "' 2>&1");
        EXPECT_TRUE(check == 0 || check == 10) << "check exited " << check << "\n" << text;
        checked_valid += check == 0 ? 1 : 0;
      }
    }
    if (code == 10) {
      EXPECT_TRUE(violated) << "a violation no interleaving has\n" << text << report;
    }
    ++counts[code == 0 ? 0 : code == 10 ? 1 : 2];
  }
  std::fprintf(stderr,
               "Pipeline: %d programs (seed %u, %d with --threads 2..): %d safe (%d certificates "
               "checked valid), %d violations, %d unknown\n",
               programs, seed, every_runs, counts[0], checked_valid, counts[1], counts[2]);
  EXPECT_GT(counts[0] + counts[1], programs / 2) << "too few answers to compare";
}

}  // namespace
}  // namespace druba::predabs
