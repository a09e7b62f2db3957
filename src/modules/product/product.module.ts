import type { AppModule } from '../module';
import { Product } from './product.entity';
import { ProductImage } from './product-image.entity';
import { Stock } from './stock.entity';
import { ProductResolver } from './product.resolver';
import { ProductImageResolver, ProductImagesFieldResolver } from './product-image.resolver';
import { StockResolver, CrlStocksFieldResolver } from './stock.resolver';
import { productPolicy } from './product.policy';
import { productImagePolicy } from './product-image.policy';
import { stockPolicy } from './stock.policy';
import { productRest } from './product.rest';
import { productSearch } from './product.search';
import { productDemo, stockDemo } from './product.demo';

export const productModule: AppModule = {
  name: 'product',
  entities: [Product, ProductImage, Stock],
  resolvers: [ProductResolver, ProductImageResolver, ProductImagesFieldResolver, StockResolver, CrlStocksFieldResolver],
  policies: [productPolicy, productImagePolicy, stockPolicy],
  connections: { products: 'Product' },
  rest: [productRest],
  openApiLists: { '/products': productSearch },
  search: [productSearch],
  demo: [productDemo, stockDemo],
};
