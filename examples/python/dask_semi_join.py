import dask, dask.dataframe as dd, pandas as pd
from distributed import Client, LocalCluster
import bloomkit.dask

if __name__ == "__main__":  # two worker processes here; Client("scheduler:8786") for a real cluster
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, Client(cluster):
        orders = dd.from_pandas(pd.DataFrame({"customer": range(2_000_000), "total": 1.0}), npartitions=8)
        vips = dd.from_pandas(pd.DataFrame({"customer": range(0, 2_000_000, 1000), "tier": "gold"}), npartitions=2)
        joined, stats = bloomkit.dask.semi_join(orders, vips, on="customer", stats=True)  # = dd.merge(orders, vips)
        rows, stats = dask.compute(joined, stats)
        print(len(rows), "rows joined;", stats.rows_saved, "of", stats.rows, "orders never shuffled")
        seen = bloomkit.dask.build(orders, column="customer", fpr=0.001)  # built on the workers, united
        seen.save("customers.bkf")  # for `bloomkit check`, or RedisBloomFilter.push(seen, "customers")
