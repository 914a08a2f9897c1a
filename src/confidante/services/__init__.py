"""Work done through the engine: cleanup and erasure (`lifecycle`), the privacy audit
(`audit`), the prompt block (`prompt`), and the credentials adapters check (`credentials`).

Services import the engine, never the other way round; `confidante.Memory` offers them as
methods."""
