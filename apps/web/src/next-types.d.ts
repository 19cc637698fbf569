// Next writes next-env.d.ts only during a build; `npm test` type-checks before building.
/// <reference types="next" />
/// <reference types="next/image-types/global" />
