#include "check/check.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "check/judge.hpp"
#include "check/report.hpp"
#include "check/source.hpp"
#include "util/file.hpp"

namespace kpw::check {
namespace {

namespace fs = std::filesystem;

// Files to read, in a stable order: directories recursively (*.yaml, *.yml, *.json).
bool expand(const std::vector<std::string>& paths, std::vector<std::string>& files,
            std::ostream& err) {
  bool ok = true;
  for (const std::string& p : paths) {
    if (p == "-") {
      files.push_back(p);
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string ext = it->path().extension().string();
        if (ext == ".yaml" || ext == ".yml" || ext == ".json") found.push_back(it->path().string());
      }
      if (ec) {
        err << p << ": cannot read: " << ec.message() << "\n";
        ok = false;
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      err << p << ": cannot read: no such file or directory\n";
      ok = false;
    }
  }
  return ok;
}

// Reads and loads `file` into `loaded` inside the recovery boundary of a file, as judge_safely is
// that of an object: anything thrown while reading or loading it (std::bad_alloc for a file too
// large for the memory left) is one error for this file, and the other files are still judged.
bool read_and_load(const std::string& file, LoadedFile& loaded, std::ostream& err) {
  std::string what;
  try {
    std::string text;
    if (!read_file(file, text)) {
      err << (file == "-" ? "<stdin>" : file) << ": cannot read\n";
      return false;
    }
    loaded = load(text);
    return true;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  loaded = LoadedFile{};
  err << (file == "-" ? "<stdin>" : file)
      << ": cannot read: internal error while loading this file: " << what << "\n";
  return false;
}

}  // namespace

int run(const std::vector<std::string>& paths, const Options& options, std::ostream& out,
        std::ostream& err) {
  std::vector<std::string> files;
  bool usage_problem = !expand(paths, files, err);
  std::vector<LoadedFile> loaded;  // kept alive: judged objects point into them
  loaded.reserve(files.size());
  std::vector<Judged> judged;
  std::vector<FileSyntaxError> syntax;
  for (const std::string& file : files) {
    LoadedFile one;
    if (!read_and_load(file, one, err)) {
      usage_problem = true;
      continue;
    }
    loaded.push_back(std::move(one));
    LoadedFile& lf = loaded.back();
    // A document that does not parse is one error; the file's other documents are still judged.
    for (const SyntaxError& e : lf.syntax_errors) syntax.push_back(FileSyntaxError{file, e});
    for (SourceObject& obj : lf.objects) judged.push_back(judge_safely(file, obj, options));
  }

  Summary summary;
  for (Judged& j : judged) {
    if (j.verdict == Verdict::kSkipped && options.strict) {
      j.verdict = Verdict::kInvalid;
      j.errors.push_back(Problem{j.source->start, "", j.skipped_reason});
    }
    ++summary.objects;
    summary.warnings += j.warnings.size();
    if (j.verdict == Verdict::kValid) ++summary.valid;
    if (j.verdict == Verdict::kInvalid) {
      ++summary.invalid;
      ++(j.upstream_denies() ? summary.invalid_upstream : summary.invalid_strict_only);
    }
    if (j.verdict == Verdict::kSkipped) ++summary.skipped;
  }

  write_report(judged, syntax, summary, options, out);

  if (usage_problem || !syntax.empty()) return 2;
  if (summary.invalid > 0) return 1;
  if (options.warnings_as_errors && summary.warnings > 0) return 1;
  return 0;
}

}  // namespace kpw::check
