import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { DataSource } from 'typeorm';
import { dataSourceOptions, initializeAndMigrate } from './data-source';
import { ENTITIES } from './entities';

/** The one DataSource, migrated at start-up (PostgreSQL with DATABASE_URL, else embedded PGlite). */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => dataSourceOptions(config),
      dataSourceFactory: (options) => initializeAndMigrate(new DataSource(options!)),
    }),
    TypeOrmModule.forFeature(ENTITIES),
  ],
  exports: [TypeOrmModule],
})
export class DatabaseModule {}
