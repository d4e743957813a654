// The runtime manifest (runtime/manifest.txt) and what each output embeds by
// it: every runtime header listed once, after every header it includes; a
// malformed manifest an internal error; the compressor program without
// seeking, the in-process header without the command line.

#include "generator/backend/runtime_source.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "generator/backend/codegen.hpp"
#include "test_support.hpp"

namespace tcgen::testing {
namespace {

std::vector<std::string> manifest_paths() {
    std::vector<std::string> paths;
    for (const RuntimeHeader& header : runtime_manifest().headers) {
        paths.push_back(header.path);
    }
    return paths;
}

// The project headers `path` includes, as paths from the source root.
std::vector<std::string> included_headers(const std::string& path) {
    std::istringstream lines(read_text(source_path(path)));
    const std::string directory = path.substr(0, path.rfind('/') + 1);
    std::vector<std::string> included;
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("#include \"", 0) != 0) {
            continue;
        }
        const std::string name = line.substr(10, line.find('"', 10) - 10);
        included.push_back(name.rfind("runtime/", 0) == 0 ? name : directory + name);
    }
    return included;
}

TEST(RuntimeManifest, ListsEveryHeaderOnceAfterEveryHeaderItIncludes) {
    const std::vector<std::string> paths = manifest_paths();
    for (const auto& entry : std::filesystem::recursive_directory_iterator(source_path("runtime"))) {
        if (entry.path().extension() == ".hpp") {
            const std::string path =
                "runtime/" + std::filesystem::relative(entry.path(), source_path("runtime")).generic_string();
            EXPECT_EQ(std::count(paths.begin(), paths.end(), path), 1) << path;
        }
    }
    for (std::size_t index = 0; index < paths.size(); ++index) {
        for (const std::string& included : included_headers(paths[index])) {
            const auto found = std::find(paths.begin(), paths.end(), included);
            EXPECT_TRUE(found < paths.begin() + static_cast<std::ptrdiff_t>(index))
                << paths[index] << " includes " << included << ", which the manifest does not list before it";
        }
    }
}

TEST(RuntimeManifest, AMalformedManifestIsAnInternalError) {
    const RuntimeManifest manifest = parse_runtime_manifest("# roles\nrole core  errors and byte order\n\n"
                                                            "runtime/error.hpp core\n");
    ASSERT_EQ(manifest.roles.size(), 1u);
    EXPECT_EQ(manifest.roles[0].description, "errors and byte order");
    ASSERT_EQ(manifest.headers.size(), 1u);
    EXPECT_EQ(manifest.headers[0].path, "runtime/error.hpp");
    for (const char* text : {"role core\n", "role core errors\nrole core again\n", "runtime/error.hpp core\n",
                             "role core errors\nruntime/error.hpp\n", "role core errors\nruntime/error.hpp core x\n"}) {
        EXPECT_THROW(parse_runtime_manifest(text), std::logic_error) << text;
    }
    EXPECT_THROW(runtime_of_roles({"no-such-role"}, ""), std::logic_error);
}

bool embeds(const std::string& code, const std::string& header) {
    return code.find("// ----- " + header + " -----\n") != std::string::npos;
}

TEST(RuntimeManifest, EachOutputEmbedsTheRolesItUses) {
    const CompileResult result = compile_text(read_text(source_path("examples/vpc3.tcg")));
    ASSERT_TRUE(result.plan) << result.rendered;
    const std::string program = generate_compressor(*result.plan);
    const std::string header = generate_codec_header(*result.plan, "vpc3", "vpc3.hpp");
    for (const char* both : {"runtime/predictors.hpp", "runtime/container_reader.hpp", "runtime/trace_writer.hpp"}) {
        EXPECT_TRUE(embeds(program, both)) << both;
        EXPECT_TRUE(embeds(header, both)) << both;
    }
    // The program reads a .tcz from start to end: no seeking, and no
    // in-process Reader.
    for (const char* in_program : {"runtime/command_line.hpp", "runtime/listing.hpp"}) {
        EXPECT_TRUE(embeds(program, in_program)) << in_program;
        EXPECT_FALSE(embeds(header, in_program)) << in_program;
    }
    for (const char* in_header : {"runtime/block_index.hpp", "runtime/record_io.hpp"}) {
        EXPECT_TRUE(embeds(header, in_header)) << in_header;
        EXPECT_FALSE(embeds(program, in_header)) << in_header;
    }
    EXPECT_NE(program.find("part 2 of 2: checksums, "), std::string::npos);
    EXPECT_NE(program.find(", the command line =====\n"), std::string::npos);
    EXPECT_NE(header.find("seeking by the block index, the in-process Reader and Writer =====\n"), std::string::npos);
}

}  // namespace
}  // namespace tcgen::testing
