print("mr-replay")
