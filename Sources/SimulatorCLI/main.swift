print("wearable-sim: not built yet")
