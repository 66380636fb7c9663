#include <secp256k1.h>
#include <secp256k1_recovery.h>

// The flag macros are built from other macros, which Swift does not import; these name them.
static inline unsigned int ow_secp256k1_context_none(void) { return SECP256K1_CONTEXT_NONE; }
static inline unsigned int ow_secp256k1_ec_uncompressed(void) { return SECP256K1_EC_UNCOMPRESSED; }
