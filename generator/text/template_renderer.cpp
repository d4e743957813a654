#include "generator/text/template_renderer.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include "generator/backend/embedded_files.hpp"

namespace tcgen {
namespace {

using kainjow::mustache::mustache;

std::string template_path(std::string_view name) {
    return "templates/" + std::string(name) + ".mustache";
}

bool is_standalone_tag(std::string_view line) {
    std::size_t begin = line.find_first_not_of(" \t");
    if (begin == std::string_view::npos) {
        return false;
    }
    line.remove_prefix(begin);
    if (line.size() < 5 || line.substr(0, 2) != "{{" || line.substr(line.size() - 2) != "}}") {
        return false;
    }
    char sigil = line[2];
    bool one_tag = line.find("{{", 2) == std::string_view::npos;
    return one_tag && (sigil == '#' || sigil == '^' || sigil == '/' || sigil == '>' || sigil == '!');
}

// Mustache drops a line that holds nothing but a section or partial tag;
// kainjow keeps an empty line for such a tag when its section is skipped.
// Removing those lines' indentation and line break before rendering gives
// the specified behaviour in every case. A tag so joined to an empty next
// line would look standalone to kainjow, which would then eat that line, so
// an empty comment tag is added to keep it.
std::string strip_standalone_tags(std::string_view text) {
    std::string result;
    std::size_t begin = 0;
    while (begin < text.size()) {
        std::size_t end = text.find('\n', begin);
        std::size_t next = end == std::string_view::npos ? text.size() : end + 1;
        std::string_view line = text.substr(begin, (end == std::string_view::npos ? text.size() : end) - begin);
        if (is_standalone_tag(line)) {
            result += line.substr(line.find_first_not_of(" \t"));
            if (next < text.size() && text[next] == '\n') {
                result += "{{! }}";
            }
        } else {
            result += text.substr(begin, next - begin);
        }
        begin = next;
    }
    return result;
}

std::string load_template(std::string_view name) {
    return strip_standalone_tags(embedded_file(template_path(name)));
}

// Looks names up like mustache's own context (innermost data first), but
// remembers every name it could not find so the caller can fail loudly, and
// serves partials from the embedded templates.
class StrictContext : public kainjow::mustache::basic_context<std::string> {
public:
    explicit StrictContext(const TemplateData& root) : inner_(&root) {}

    void push(const TemplateData* data) override { inner_.push(data); }
    void pop() override { inner_.pop(); }

    const TemplateData* get(const std::string& name) const override {
        const TemplateData* value = inner_.get(name);
        if (value == nullptr) {
            missing_.insert(name);
        }
        return value;
    }

    const TemplateData* get_partial(const std::string& name) const override {
        auto found = partials_.find(name);
        if (found == partials_.end()) {
            found = partials_.emplace(name, TemplateData(load_template(name))).first;
        }
        return &found->second;
    }

    const std::set<std::string>& missing() const { return missing_; }

private:
    kainjow::mustache::context<std::string> inner_;
    mutable std::set<std::string> missing_;
    mutable std::map<std::string, TemplateData> partials_;
};

}  // namespace

TemplateData template_list() {
    return TemplateData(TemplateData::type::list);
}

std::string render_template(std::string_view name, const TemplateData& data) {
    mustache engine(load_template(name));
    engine.set_custom_escape([](const std::string& text) { return text; });
    if (!engine.is_valid()) {
        throw std::logic_error("template " + std::string(name) + ": " + engine.error_message());
    }
    StrictContext context(data);
    std::string result = engine.render(context);
    if (!engine.is_valid()) {
        throw std::logic_error("template " + std::string(name) + ": " + engine.error_message());
    }
    if (!context.missing().empty()) {
        std::string names;
        for (const std::string& missing : context.missing()) {
            names += names.empty() ? missing : ", " + missing;
        }
        throw std::logic_error("template " + std::string(name) + " uses names the data lacks: " + names);
    }
    return result;
}

}  // namespace tcgen
