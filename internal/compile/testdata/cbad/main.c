int32_t k32_handle(void) { return undefined_thing; }
