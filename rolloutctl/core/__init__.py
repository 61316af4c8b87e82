"""Pure core: vocabulary, world, environment and the simulator."""
