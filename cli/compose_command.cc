#include "cli/compose_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "common/diagnostics.h"
#include "common/files.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "front/options.h"

namespace druba::cli {

CLI::App* AddCompose(CLI::App& app, ComposeOptions& options) {
  CLI::App* compose = app.add_subcommand(
      "compose", "build a CPDS instance from the PDA blocks (thread templates) of another file");
  compose->add_option("from", options.from, "the .pds whose blocks are the templates")->required();
  compose
      ->add_option("--blocks", options.blocks,
                   "the block (0-based) each thread runs, e.g. 0,1,2,2,3")
      ->required()
      ->delimiter(',')
      ->check(front::NotEmpty());
  compose->add_option("--init", options.init, "the initial state 'g|w0,w1,...'")->required();
  compose->add_option("-o,--out", options.out, "OUT.pds; OUT.init is written beside it")
      ->required()
      ->check(front::NotEmpty());
  return compose;
}

int RunCompose(const ComposeOptions& options) {
  Warnings warnings;
  const cpds::Cpds source = cpds::ParsePds(ReadFile(options.from), options.from, &warnings);
  cpds::Cpds instance;
  instance.file = options.out;
  instance.shared_states = source.shared_states;
  std::string text = "# composed by druba from " + options.from + ", blocks";
  for (const unsigned block : options.blocks) {
    if (block >= source.threads.size()) {
      throw InputError({"--blocks", 0, 0},
                       "block " + std::to_string(block) + " does not exist: " + options.from +
                           " has " + std::to_string(source.threads.size()) + " blocks (0.." +
                           std::to_string(source.threads.size() - 1) + ")");
    }
    text += " " + std::to_string(block);
    instance.threads.push_back(source.threads[block]);
  }
  text += "\n" + std::to_string(instance.shared_states) + "\n";
  for (std::size_t t = 0; t < instance.threads.size(); ++t) {
    const cpds::Pda& pda = instance.threads[t];
    text += "# thread " + std::to_string(t) + ": block " + std::to_string(options.blocks[t]) +
            " (line " + std::to_string(pda.line) + ")\nPDA " + std::to_string(pda.lo) + " " +
            std::to_string(pda.hi) + "\n";
    for (const cpds::Rule& rule : pda.rules) text += cpds::RuleToString(rule) + "\n";
  }
  // Validates the initial state against the new instance before anything is written.
  cpds::ParseInit(options.init, "--init", instance);
  std::filesystem::path init_path(options.out);
  init_path.replace_extension(".init");
  WriteFileAtomically(options.out, text);
  WriteFileAtomically(init_path.string(), options.init + "\n");
  std::cout << "wrote " << options.out << " (" << instance.threads.size() << " threads) and "
            << init_path.string() << "\n";
  return 0;
}

}  // namespace druba::cli
