// simdjson's DOM parser, flattened into CMotionJSON_items (see include/motion_json.h).
#include "motion_json.h"

#include <cstring>
#include <simdjson.h>
#include <vector>

namespace {

/// One thread's parser and the items of its last document.
struct ThreadParser {
    simdjson::dom::parser parser;
    std::vector<CMotionJSON_item> items;
};

/// Documents above this size get a parser of their own, freed on the next call, so one large document
/// does not keep its buffers for the life of the thread.
constexpr size_t retainedCapacity = 1 << 20;

thread_local ThreadParser *threadParser = nullptr;
thread_local ThreadParser *largeParser = nullptr;

struct ThreadParserCleanup {
    ~ThreadParserCleanup() {
        delete threadParser;
        delete largeParser;
    }
};
thread_local ThreadParserCleanup cleanup;

uint64_t bits(double value) {
    uint64_t result;
    std::memcpy(&result, &value, sizeof result);
    return result;
}

void append(std::vector<CMotionJSON_item> &items, simdjson::dom::element element) {
    using simdjson::dom::element_type;
    switch (element.type()) {
    case element_type::ARRAY: {
        size_t at = items.size();
        items.push_back({CMotionJSON_KIND_ARRAY, 0, 0});
        uint32_t count = 0;
        for (simdjson::dom::element child : simdjson::dom::array(element)) {
            append(items, child);
            count++;
        }
        items[at].count = count;
        items[at].payload = items.size();
        break;
    }
    case element_type::OBJECT: {
        size_t at = items.size();
        items.push_back({CMotionJSON_KIND_OBJECT, 0, 0});
        uint32_t count = 0;
        for (simdjson::dom::key_value_pair member : simdjson::dom::object(element)) {
            items.push_back({CMotionJSON_KIND_STRING, uint32_t(member.key.size()),
                             uint64_t(reinterpret_cast<uintptr_t>(member.key.data()))});
            append(items, member.value);
            count++;
        }
        items[at].count = count;
        items[at].payload = items.size();
        break;
    }
    case element_type::STRING: {
        std::string_view text(element);
        items.push_back(
            {CMotionJSON_KIND_STRING, uint32_t(text.size()), uint64_t(reinterpret_cast<uintptr_t>(text.data()))});
        break;
    }
    case element_type::INT64:
        items.push_back({CMotionJSON_KIND_NUMBER, 0, bits(double(int64_t(element)))});
        break;
    case element_type::UINT64:
        items.push_back({CMotionJSON_KIND_NUMBER, 0, bits(double(uint64_t(element)))});
        break;
    case element_type::DOUBLE:
        items.push_back({CMotionJSON_KIND_NUMBER, 0, bits(double(element))});
        break;
    case element_type::BOOL:
        items.push_back({bool(element) ? CMotionJSON_KIND_TRUE : CMotionJSON_KIND_FALSE, 0, 0});
        break;
    case element_type::NULL_VALUE:
        items.push_back({CMotionJSON_KIND_NULL, 0, 0});
        break;
    }
}

} // namespace

extern "C" int CMotionJSON_parse(const char *bytes, size_t length, const CMotionJSON_item **items, size_t *count) {
    delete largeParser;
    largeParser = nullptr;
    ThreadParser *state;
    if (length > retainedCapacity) {
        state = largeParser = new ThreadParser();
    } else {
        if (threadParser == nullptr) threadParser = new ThreadParser();
        state = threadParser;
    }
    (void)&cleanup; // odr-use, so that the thread's parsers are freed when it ends
    simdjson::dom::element root;
    simdjson::error_code error = state->parser.parse(bytes, length).get(root);
    if (error != simdjson::SUCCESS) return int(error);
    state->items.clear();
    append(state->items, root);
    *items = state->items.data();
    *count = state->items.size();
    return 0;
}

extern "C" const char *CMotionJSON_error_message(int code) {
    return simdjson::error_message(simdjson::error_code(code));
}
