#include "c/translate.h"

#include "c/lowering.h"
#include "common/files.h"

namespace druba::c {

std::string TranslateC(const std::string& file) {
  return internal::Lowering(file).Run();
}

std::string ModelSource(const std::string& model) {
  return model.ends_with(".c") ? TranslateC(model) : ReadFile(model);
}

}  // namespace druba::c
