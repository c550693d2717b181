print("mr-collector")
